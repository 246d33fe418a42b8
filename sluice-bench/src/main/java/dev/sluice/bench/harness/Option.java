package dev.sluice.bench.harness;

/**
 * A workload option, given on the command line as {@code --name value}.
 *
 * @param name the option's name, without dashes
 * @param defaultValue what a run uses when the option is not given
 * @param description one line for the help text
 */
public record Option(String name, String defaultValue, String description) {}
