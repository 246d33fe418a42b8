package dev.sluice.proxy.http;

/** The four forms of a request target (RFC 9112 §3.2). */
public enum TargetForm {
  /** {@code /path?query}: the usual form. */
  ORIGIN,
  /** {@code http://host/path}: sent to proxies; its authority overrides Host. */
  ABSOLUTE,
  /** {@code host:port}: CONNECT only. */
  AUTHORITY,
  /** {@code *}: OPTIONS only. */
  ASTERISK
}
