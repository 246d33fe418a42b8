package dev.sluice.net;

import java.time.Duration;

/**
 * The one spelling of "no timeout" and the longest timeout Sluice accepts. Every timeout setting
 * (idle, connect, TLS handshake, a scheduled task's delay) is checked here, so a huge value is a
 * clear error at configuration time instead of an overflow on the first connection.
 */
public final class Timeouts {
  /** No timeout at all. */
  public static final Duration NONE = Duration.ZERO;

  /** The longest timeout accepted: 365 days. */
  public static final Duration MAX = Duration.ofDays(365);

  private Timeouts() {}

  /**
   * Returns {@code value} if it is {@link #NONE} or positive and at most {@link #MAX}.
   *
   * @throws IllegalArgumentException naming the setting, otherwise
   */
  public static Duration check(String name, Duration value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must be set (Timeouts.NONE for no timeout)");
    }
    if (value.isNegative() || value.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          name + " must be between 0 (no timeout) and " + MAX.toDays() + " days, not " + value);
    }
    return value;
  }
}
