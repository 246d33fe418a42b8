package dev.sluice.proxy.config;

import dev.sluice.proxy.http.HeaderRewrite;
import dev.sluice.proxy.http.HttpRoutes;
import java.time.Duration;

/**
 * An HTTP/1 listener's settings ({@code protocol: http}): how each request is routed, how heads are
 * rewritten, how large a head may be, how idle upstream connections are kept for reuse (its
 * timeouts are with the others, in {@link TimeoutSettings}).
 *
 * @param routes host and path rules, first match wins; the listener's cluster otherwise
 * @param rewrite X-Forwarded-* and the configured request and response header edits
 * @param maxHeaderBytes the most bytes of a request or response head (431 or 502 beyond)
 * @param upstreamPool how many idle upstream connections are kept, and for how long
 */
public record ListenerHttp(
    HttpRoutes routes, HeaderRewrite rewrite, int maxHeaderBytes, UpstreamPool upstreamPool) {

  /** 32 KiB: a request head beyond gets 431. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 32 * 1024;

  public ListenerHttp(HttpRoutes routes, HeaderRewrite rewrite, int maxHeaderBytes) {
    this(routes, rewrite, maxHeaderBytes, UpstreamPool.DEFAULT);
  }

  /**
   * Idle upstream connections kept after a response, for the next request to the same upstream.
   *
   * @param maxIdlePerUpstream the most kept per upstream on each event loop (0: none, every request
   *     connects anew)
   * @param idle how long one is kept unused before it is closed
   */
  public record UpstreamPool(int maxIdlePerUpstream, Duration idle) {
    public static final UpstreamPool DEFAULT = new UpstreamPool(64, Duration.ofSeconds(30));

    /** The most {@code maxIdlePerUpstream} may be. */
    public static final int MAX_IDLE_PER_UPSTREAM = 10_000;

    public UpstreamPool {
      if (maxIdlePerUpstream < 0 || maxIdlePerUpstream > MAX_IDLE_PER_UPSTREAM) {
        throw new IllegalArgumentException(
            "maxIdlePerUpstream must be 0.." + MAX_IDLE_PER_UPSTREAM + ": " + maxIdlePerUpstream);
      }
      if (idle.isNegative() || idle.isZero()) {
        throw new IllegalArgumentException(
            "idle must be above 0 (maxIdlePerUpstream: 0 keeps none)");
      }
    }

    /** Whether connections are kept at all. */
    public boolean enabled() {
      return maxIdlePerUpstream > 0;
    }
  }
}
