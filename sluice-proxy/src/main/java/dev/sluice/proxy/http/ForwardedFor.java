package dev.sluice.proxy.http;

/** What the proxy tells the upstream about the client (X-Forwarded-For and its kin). */
public enum ForwardedFor {
  /**
   * Drop what the client sent as X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host and
   * Forwarded, then set X-Forwarded-For to the client's address, X-Forwarded-Proto to {@code http}
   * or {@code https} and X-Forwarded-Host to the request's authority: the default, for a proxy at
   * the edge, where anything a client says about itself is a lie until proven otherwise.
   */
  REPLACE,
  /**
   * Append the client's address to the X-Forwarded-For the client sent (one field, the values in
   * order); set X-Forwarded-Proto and -Host only when the client sent none; keep Forwarded: for a
   * proxy behind another that is trusted.
   */
  APPEND,
  /** Touch none of them. */
  OFF
}
