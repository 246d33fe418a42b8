package dev.sluice.bench.harness;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The implementations a workload compares: Sluice's core and Netty's NIO transport. */
public enum Impl {
  SLUICE("Sluice"),
  NETTY("Netty");

  private final String displayName;

  Impl(String displayName) {
    this.displayName = displayName;
  }

  /** The lower-case id used on the command line and in JSON. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The name for tables and progress lines. */
  public String displayName() {
    return displayName;
  }

  /**
   * Parses an id.
   *
   * @throws IllegalArgumentException naming the accepted ids
   */
  public static Impl parse(String id) {
    for (Impl impl : values()) {
      if (impl.id().equals(id)) {
        return impl;
      }
    }
    throw new IllegalArgumentException(
        "unknown implementation '"
            + id
            + "'; expected one of "
            + Arrays.stream(values()).map(Impl::id).collect(Collectors.joining(", ")));
  }
}
