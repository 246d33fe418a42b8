package dev.sluice.proxy.forward;

/**
 * Why a pair ended, as the operator sees it in metrics and the access log: the first cause wins (an
 * idle timeout that resets the upstream is an idle timeout, not an upstream reset).
 */
public enum CloseCause {
  /** Both directions finished; the client ended its side first. */
  CLIENT_EOF("client_eof"),
  /** Both directions finished; the upstream ended its side first. */
  UPSTREAM_EOF("upstream_eof"),
  /** No bytes moved either way, and nothing was pending, for the idle timeout. */
  IDLE_TIMEOUT("idle_timeout"),
  /** One side ended and the other did not follow within the half-close timeout. */
  HALF_CLOSE_TIMEOUT("half_close_timeout"),
  /**
   * One side had bytes pending and took none of them for the write-stall timeout (a peer that
   * stopped reading): the pair is reset, and what it held goes back to the budget.
   */
  WRITE_STALL_TIMEOUT("write_stall_timeout"),
  /**
   * One side closed for good (a TLS 1.2 close_notify closes both directions) while the other still
   * sent: those bytes could go nowhere, so the sender is reset rather than told all was taken.
   */
  UNDELIVERABLE("undeliverable"),
  /** The pair reached its maximum duration. */
  MAX_DURATION("max_duration"),
  /** The upstream did not accept the connection in time. */
  CONNECT_TIMEOUT("connect_timeout"),
  /** The upstream refused the connection. */
  CONNECT_REFUSED("connect_refused"),
  /** Connecting to the upstream failed otherwise (unreachable, no route...). */
  CONNECT_FAILED("connect_failed"),
  /**
   * The proxy had no file descriptor left for the upstream socket (EMFILE/ENFILE): a local fault,
   * so the upstream is not blamed (no passive ejection) and no other upstream is tried.
   */
  FD_EXHAUSTED("fd_exhausted"),
  /** The client reset its connection. */
  CLIENT_RESET("client_reset"),
  /** The upstream reset its connection. */
  UPSTREAM_RESET("upstream_reset"),
  /** The client's TLS handshake failed. */
  TLS_HANDSHAKE_FAILED("tls_handshake_failed"),
  /** The client did not finish its TLS handshake in time. */
  TLS_HANDSHAKE_TIMEOUT("tls_handshake_timeout"),
  /** A TLS error after the handshake (a bad record, a fatal alert, a truncation). */
  TLS_ERROR("tls_error"),
  /**
   * The client started a TLS 1.2 renegotiation (a new handshake on its established connection),
   * which is refused.
   */
  TLS_RENEGOTIATION_REFUSED("tls_renegotiation_refused"),
  /** A passthrough listener could not read a ClientHello (malformed, too large, too slow). */
  CLIENT_HELLO_INVALID("client_hello_invalid"),
  /** The client's JA3 or JA4 fingerprint is in the listener's blocklist. */
  FINGERPRINT_BLOCKED("fingerprint_blocked"),
  /**
   * A listener with a fingerprint blocklist got no complete ClientHello within the handshake
   * timeout (or one it could not read): it fails closed rather than let an unknown client through.
   */
  CLIENT_HELLO_INCOMPLETE("client_hello_incomplete"),
  /**
   * A listener that expects PROXY protocol headers got a malformed, truncated, oversized or
   * unexpected one (or none: the client closed first).
   */
  PROXY_PROTOCOL_INVALID("proxy_protocol_invalid"),
  /** No complete PROXY protocol header within the listener's time for it. */
  PROXY_PROTOCOL_TIMEOUT("proxy_protocol_timeout"),
  /** A listener that expects PROXY protocol headers refused a peer that is not a trusted source. */
  PROXY_PROTOCOL_UNTRUSTED("proxy_protocol_untrusted"),
  /**
   * The upstream's TLS handshake failed (its certificate did not verify, no common protocol...).
   */
  UPSTREAM_TLS_FAILED("upstream_tls_failed"),
  /** The upstream did not finish its TLS handshake in time (the cluster's tls.handshakeTimeout). */
  UPSTREAM_TLS_TIMEOUT("upstream_tls_timeout"),
  /** No route for the client (no cluster for its server name). */
  NO_ROUTE("no_route"),
  /** The cluster had no upstream that could take a connection (all down, ejected or tried). */
  NO_HEALTHY_UPSTREAM("no_healthy_upstream"),
  /** The listener's maxConnections was reached. */
  LIMIT_REACHED("limit_reached"),
  /** The listener's rate of new connections was exceeded. */
  RATE_LIMITED("rate_limited"),
  /** The client's address had as many connections open as allowed. */
  SOURCE_LIMIT("source_limit"),
  /** The client's address is not allowed (or is denied) on the listener. */
  DENIED("denied"),
  /** A TLS client sent no server name where one is required. */
  SNI_REQUIRED("sni_required"),
  /** The proxy shut down. */
  SHUTDOWN("shutdown"),
  /** An HTTP listener refused a request it answered itself (400, 405, 414, 431, 501, 505). */
  BAD_REQUEST("bad_request"),
  /** An HTTP client did not finish a request head within the requestHead timeout (408). */
  REQUEST_HEAD_TIMEOUT("request_head_timeout"),
  /** An HTTP client connection sat idle between requests for the keepAlive timeout. */
  KEEP_ALIVE_TIMEOUT("keep_alive_timeout"),
  /** An HTTP upstream sent a response that cannot answer the request (502). */
  BAD_RESPONSE("bad_response"),
  /** An HTTP upstream sent no response head within the responseHead timeout (504). */
  RESPONSE_HEAD_TIMEOUT("response_head_timeout"),
  /** An error on the client's connection. */
  CLIENT_ERROR("client_error"),
  /** An error on the upstream's connection. */
  UPSTREAM_ERROR("upstream_error");

  private final String label;

  CloseCause(String label) {
    this.label = label;
  }

  /** The stable label used in metrics and logs. */
  public String label() {
    return label;
  }

  /**
   * Why a client that closed during a first stage (before its ClientHello was read, say) ended: a
   * reset is the client's, a shutdown the proxy's, anything else that stage's own {@code cause}.
   */
  public static CloseCause closedInFirstStage(dev.sluice.net.CloseReason reason, CloseCause cause) {
    return switch (reason) {
      case dev.sluice.net.CloseReason.PeerReset reset -> CLIENT_RESET;
      case dev.sluice.net.CloseReason.Shutdown shutdown -> SHUTDOWN;
      default -> cause;
    };
  }
}
