package dev.sluice.proxy.config;

import dev.sluice.proxy.http.HeaderRewrite;
import dev.sluice.proxy.http.HttpRoutes;

/**
 * An HTTP/1 listener's settings ({@code protocol: http}): how each request is routed, how heads are
 * rewritten, how large a head may be (its timeouts are with the others, in {@link
 * TimeoutSettings}).
 *
 * @param routes host and path rules, first match wins; the listener's cluster otherwise
 * @param rewrite X-Forwarded-* and the configured request and response header edits
 * @param maxHeaderBytes the most bytes of a request or response head (431 or 502 beyond)
 */
public record ListenerHttp(HttpRoutes routes, HeaderRewrite rewrite, int maxHeaderBytes) {

  /** 32 KiB: a request head beyond gets 431. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 32 * 1024;
}
