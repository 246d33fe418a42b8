package dev.sluice.bench.harness;

import java.util.Locale;

/** Which of a run's two processes a child JVM is. */
public enum Role {
  /** Runs the implementation under test; its memory and timings are what a run reports. */
  MEASURED,
  /**
   * Generates or absorbs the load with plain blocking JDK sockets, identical in every arm, so a
   * difference between arms comes from the measured side alone.
   */
  PEER;

  /** The lower-case id used on a child's command line. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses an id. */
  public static Role parse(String id) {
    return valueOf(id.toUpperCase(Locale.ROOT));
  }
}
