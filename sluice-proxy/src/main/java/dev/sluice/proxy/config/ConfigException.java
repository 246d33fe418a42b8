package dev.sluice.proxy.config;

import java.util.List;
import java.util.stream.Collectors;

/** A configuration that cannot be used, with every problem found in it. */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<Problem> problems;

  public ConfigException(List<Problem> problems) {
    super(
        problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + " in the configuration:\n"
            + problems.stream().map(p -> "  " + p).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  /** Every problem, in file order. */
  public List<Problem> problems() {
    return problems;
  }
}
