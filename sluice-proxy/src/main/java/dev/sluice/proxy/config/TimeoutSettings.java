package dev.sluice.proxy.config;

import java.time.Duration;

/**
 * The timeouts of a pair ({@link Duration#ZERO} for none).
 *
 * @param connect connecting to an upstream
 * @param idle no bytes either way and nothing pending, for this long, closes the pair (a busy or
 *     backpressured pair is never cut)
 * @param handshake a client's TLS handshake, or for a passthrough listener its ClientHello
 * @param halfClose a pair one side of which has ended closes when the direction still open has
 *     moved no bytes, and holds none pending, for this long (no FIN-WAIT-2 leak; a download after
 *     the client's FIN runs on while it moves)
 * @param maxConnectionDuration a pair this old closes, whatever it is doing (off by default)
 * @param writeStall a pair whose one side has had bytes pending and taken none of them for this
 *     long is reset: being backpressured is no licence to hold bytes forever
 * @param requestHead on an HTTP listener, the most time to a request head's end, from the
 *     connection's start or the next request's first byte: 408 after (the slowloris bound)
 * @param keepAlive on an HTTP listener, the most time a client connection waits idle between
 *     requests
 * @param responseHead on an HTTP listener, the most time from a request sent to its response's
 *     head: 504 after
 */
public record TimeoutSettings(
    Duration connect,
    Duration idle,
    Duration handshake,
    Duration halfClose,
    Duration maxConnectionDuration,
    Duration writeStall,
    Duration requestHead,
    Duration keepAlive,
    Duration responseHead) {

  /** The raw path's timeouts, the HTTP ones at their defaults. */
  public TimeoutSettings(
      Duration connect,
      Duration idle,
      Duration handshake,
      Duration halfClose,
      Duration maxConnectionDuration,
      Duration writeStall) {
    this(
        connect,
        idle,
        handshake,
        halfClose,
        maxConnectionDuration,
        writeStall,
        Duration.ofSeconds(10),
        Duration.ofSeconds(60),
        Duration.ofSeconds(60));
  }

  /**
   * connect 5s, idle 1h, handshake 10s, halfClose 1m, maxConnectionDuration none, writeStall 1m;
   * requestHead 10s, keepAlive 60s, responseHead 60s.
   */
  public static final TimeoutSettings DEFAULTS =
      new TimeoutSettings(
          Duration.ofSeconds(5),
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          Duration.ofMinutes(1),
          Duration.ZERO,
          Duration.ofMinutes(1));
}
