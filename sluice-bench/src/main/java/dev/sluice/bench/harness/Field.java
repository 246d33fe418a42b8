package dev.sluice.bench.harness;

/**
 * A figure a workload reports. A dotted name ({@code points.4096}) nests in JSON ({@code "points":
 * {"4096": ...}}).
 *
 * @param name the JSON key
 * @param unit what the value counts
 * @param description one line for the help text and the README
 */
public record Field(String name, Unit unit, String description) {}
