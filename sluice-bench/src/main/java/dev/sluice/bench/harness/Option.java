package dev.sluice.bench.harness;

/**
 * A workload option, given on the command line as {@code --name value}, or for a flag as {@code
 * --name} alone (true) or {@code --name=false}.
 *
 * @param name the option's name, without dashes
 * @param defaultValue what a run uses when the option is not given ({@code false} for a flag)
 * @param description one line for the help text
 * @param flag whether the option takes no value: given alone it is {@code true}
 */
public record Option(String name, String defaultValue, String description, boolean flag) {

  /** An option that takes a value. */
  public Option(String name, String defaultValue, String description) {
    this(name, defaultValue, description, false);
  }

  /** A flag: off unless given; {@code --name} alone turns it on. */
  public static Option flag(String name, String description) {
    return new Option(name, "false", description, true);
  }
}
