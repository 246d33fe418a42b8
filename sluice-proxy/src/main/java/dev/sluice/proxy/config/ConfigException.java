package dev.sluice.proxy.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** A configuration that cannot be used, with every problem found in it. */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<Problem> problems;
  private final transient Set<Path> files;

  public ConfigException(List<Problem> problems) {
    this(problems, Set.of());
  }

  /**
   * With the files the configuration names (certificates, keys, CAs), readable or not: what a
   * watcher must watch for the configuration to be tried again when one of them appears.
   */
  public ConfigException(List<Problem> problems, Set<Path> files) {
    super(
        problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + " in the configuration:\n"
            + problems.stream().map(p -> "  " + p).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
    this.files = Set.copyOf(files);
  }

  /** The files the rejected configuration names, as absolute paths (none if it did not parse). */
  public Set<Path> files() {
    return files;
  }

  /** Every problem, in file order. */
  public List<Problem> problems() {
    return problems;
  }
}
