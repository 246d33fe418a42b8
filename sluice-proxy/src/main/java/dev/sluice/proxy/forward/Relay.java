package dev.sluice.proxy.forward;

import dev.sluice.net.Connection;
import java.nio.ByteBuffer;

/**
 * What a pair does with the bytes its legs read, and when it connects upstream: the seam between
 * the legs (connections, the write and its backpressure, the budget) and the protocol spoken over
 * them. A pair has one relay at a time; it runs on the pair's loop.
 *
 * <p>The raw relay connects as soon as the client is in and forwards every read as it came. The
 * HTTP/1 relay ({@link HttpRelay}): holds the client's first bytes before any upstream exists
 * ({@link #start} does not connect; {@link #onRead} parses in the read slab and keeps only a
 * partial head, at exact size and charged to the budget); connects when the first head is parsed
 * ({@link UpstreamConnect}: the balancer, retries and failure causes are the raw path's, answered
 * as 502, 503 or 504); switches to the raw relay on Upgrade ({@link Pair#relay(Relay)}); and closes
 * the pair with a cause ({@link Pair#close}).
 */
public interface Relay {
  /** The raw pipe (one instance serves every pair). */
  static Relay rawPipe() {
    return RawRelay.INSTANCE;
  }

  /** A new HTTP/1 relay, for one pair of a listener with these settings. */
  static Relay http(dev.sluice.proxy.config.ListenerHttp settings) {
    return new HttpRelay(settings);
  }

  /** The client's leg is active and admitted (its TLS handshake done, its SNI checked). */
  void start(Pair pair);

  /**
   * {@code from} read {@code data}: bytes in the loop's read slab, valid only during this call
   * (what is kept must be copied, at exact size).
   */
  void onRead(Leg from, ByteBuffer data);

  /** The upstream's leg is active; the pair is forwarding. */
  void onUpstreamActive(Pair pair);

  /** {@code leg}'s side ended its output (an EOF, or a TLS close_notify). */
  void onEnded(Leg leg);

  /**
   * Whether {@code leg} may read now (asked when what held it back is gone: its peer drained, the
   * budget has room). The raw relay reads only while forwarding.
   */
  default boolean wantsReads(Leg leg) {
    return leg.pair().forwarding();
  }

  /**
   * Whether the upstream leg serves one exchange at a time (an HTTP relay's, until an upgrade): its
   * end and its loss are the relay's to judge ({@link #onUpstreamLost}), not the pair's end.
   */
  default boolean upstreamPerExchange() {
    return false;
  }

  /**
   * The upstream leg's connection closed ({@code cause}) while the pair was open; asked only when
   * {@link #upstreamPerExchange}. True: the relay goes on without it (it answers the client, or
   * sends the request again); false: the pair ends as on the raw path.
   */
  default boolean onUpstreamLost(Pair pair, CloseCause cause, String detail) {
    return false;
  }

  /**
   * The proxy is shutting down and lets open pairs finish: a relay that can end its pair early
   * without cutting anything (an HTTP connection between requests) does so, or at its next
   * boundary. The raw relay cannot tell: its pairs run until they end or the drain time is up.
   */
  default void onDrain(Pair pair) {}

  /** What {@code leg} read has all been taken by its peer (it was paused for it). */
  default void onDrained(Leg leg) {}

  /** The pair ended: what the relay holds goes back to the budget, its timers stop. */
  default void onPairEnded(Pair pair) {}

  /** The upstream connect failed for good ({@link UpstreamConnect.Outcome#failed}). */
  default void onConnectFailed(Pair pair, CloseCause cause, String detail, boolean reset) {
    pair.close(cause, detail, reset);
  }

  /**
   * The connection {@code from}'s next read may go to inside the kernel, bypassing {@link #onRead}
   * (the raw relay, while a leg streams), or null: every read comes to {@link #onRead}.
   */
  default Connection spliceTarget(Leg from) {
    return null;
  }
}
