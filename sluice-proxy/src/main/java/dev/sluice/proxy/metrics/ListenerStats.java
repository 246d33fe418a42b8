package dev.sluice.proxy.metrics;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Side;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one listener's pairs have done: accepted, open now, closed by cause, bytes each way (counted
 * as they are read, so that long-lived pairs show). Updated from the loops without locks; read from
 * anywhere (the operator surface, tests).
 */
public final class ListenerStats {
  private final String listener;
  private final LongAdder accepted = new LongAdder();
  private final AtomicLong open = new AtomicLong();
  private final LongAdder[] closed = new LongAdder[CloseCause.values().length];
  private final LongAdder bytesFromClients = new LongAdder();
  private final LongAdder bytesFromUpstreams = new LongAdder();
  private final LongAdder fullHandshakes = new LongAdder();
  private final LongAdder resumedHandshakes = new LongAdder();

  /** HTTP responses by route, then by status class (index 1 to 5: 1xx to 5xx). */
  private final java.util.concurrent.ConcurrentMap<String, LongAdder[]> httpResponses =
      new java.util.concurrent.ConcurrentHashMap<>();

  public ListenerStats(String listener) {
    this.listener = listener;
    for (int i = 0; i < closed.length; i++) {
      closed[i] = new LongAdder();
    }
  }

  public String listener() {
    return listener;
  }

  public void accepted() {
    accepted.increment();
    open.incrementAndGet();
  }

  /** A pair ended with {@code cause}. */
  public void closed(CloseCause cause) {
    open.decrementAndGet();
    closed[cause.ordinal()].increment();
  }

  /** A pair read {@code bytes} from {@code side}: counted as they move, not when the pair ends. */
  public void read(Side side, int bytes) {
    (side == Side.CLIENT ? bytesFromClients : bytesFromUpstreams).add(bytes);
  }

  /** A TLS handshake finished here: a full one, or one that resumed an earlier session. */
  public void handshake(boolean resumed) {
    (resumed ? resumedHandshakes : fullHandshakes).increment();
  }

  /** TLS handshakes finished here that resumed a session ({@code true}) or were full. */
  public long handshakes(boolean resumed) {
    return (resumed ? resumedHandshakes : fullHandshakes).sum();
  }

  /**
   * An HTTP listener's request routed to {@code route} ended, its client having got a response head
   * of {@code status} (the proxy's own answers included; "none" before a request was routed).
   * Counted when the request ends, as the request-duration histogram observes it.
   */
  public void httpResponse(String route, int status) {
    LongAdder[] byClass =
        httpResponses.computeIfAbsent(
            route == null ? "none" : route,
            r -> {
              LongAdder[] counts = new LongAdder[6];
              for (int i = 1; i < counts.length; i++) {
                counts[i] = new LongAdder();
              }
              return counts;
            });
    byClass[Math.clamp(status / 100, 1, 5)].increment();
  }

  /** HTTP responses so far: route -> status class ("2xx") -> count; classes never seen left out. */
  public Map<String, Map<String, Long>> httpResponses() {
    Map<String, Map<String, Long>> all = new java.util.TreeMap<>();
    httpResponses.forEach(
        (route, byClass) -> {
          Map<String, Long> counts = new java.util.TreeMap<>();
          for (int i = 1; i < byClass.length; i++) {
            long n = byClass[i].sum();
            if (n > 0) {
              counts.put(i + "xx", n);
            }
          }
          all.put(route, counts);
        });
    return all;
  }

  public long acceptedCount() {
    return accepted.sum();
  }

  /** Pairs open now (accepted and not yet ended). */
  public long openCount() {
    return open.get();
  }

  public long closedCount(CloseCause cause) {
    return closed[cause.ordinal()].sum();
  }

  /** Every cause with its count (zeros included), in declaration order. */
  public Map<CloseCause, Long> closedByCause() {
    Map<CloseCause, Long> counts = new EnumMap<>(CloseCause.class);
    for (CloseCause cause : CloseCause.values()) {
      counts.put(cause, closed[cause.ordinal()].sum());
    }
    return counts;
  }

  public long bytesFromClients() {
    return bytesFromClients.sum();
  }

  public long bytesFromUpstreams() {
    return bytesFromUpstreams.sum();
  }
}
