package dev.sluice.proxy.config;

import java.time.Duration;

/**
 * The timeouts of a pair ({@link Duration#ZERO} for none).
 *
 * @param connect connecting to an upstream
 * @param idle no bytes either way and nothing pending, for this long, closes the pair (a busy or
 *     backpressured pair is never cut)
 * @param handshake a client's TLS handshake, or for a passthrough listener its ClientHello
 * @param halfClose a pair one side of which has ended, for this long, closes (no FIN-WAIT-2 leak)
 * @param maxConnectionDuration a pair this old closes, whatever it is doing (off by default)
 */
public record TimeoutSettings(
    Duration connect,
    Duration idle,
    Duration handshake,
    Duration halfClose,
    Duration maxConnectionDuration) {

  /** connect 5s, idle 1h, handshake 10s, halfClose 1m, maxConnectionDuration none. */
  public static final TimeoutSettings DEFAULTS =
      new TimeoutSettings(
          Duration.ofSeconds(5),
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          Duration.ofMinutes(1),
          Duration.ZERO);
}
