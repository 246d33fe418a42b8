package dev.sluice.net;

/** Why a connection closed. Every close has exactly one, reported once to the handler. */
public sealed interface CloseReason {

  /** A short, stable label for metrics and logs (e.g. {@code peer_reset}). */
  String label();

  /** Closed in order: both directions finished, or {@link Connection#close()} was called. */
  record Normal() implements CloseReason {
    @Override
    public String label() {
      return "normal";
    }
  }

  /**
   * Closed here with a reset ({@link Connection#reset()}): the peer sees RST, pending writes fail.
   */
  record LocalReset() implements CloseReason {
    @Override
    public String label() {
      return "local_reset";
    }
  }

  /** The peer reset the connection (RST), or it broke while writing to it. */
  record PeerReset(String detail) implements CloseReason {
    @Override
    public String label() {
      return "peer_reset";
    }
  }

  /** No bytes moved in either direction for the configured idle timeout. */
  record IdleTimeout(long timeoutMillis) implements CloseReason {
    @Override
    public String label() {
      return "idle_timeout";
    }
  }

  /** A client connection did not complete its connect in time. */
  record ConnectTimeout(long timeoutMillis) implements CloseReason {
    @Override
    public String label() {
      return "connect_timeout";
    }
  }

  /** The event loop group shut down while the connection was open. */
  record Shutdown() implements CloseReason {
    @Override
    public String label() {
      return "shutdown";
    }
  }

  /**
   * Refused before it carried any traffic: by a first stage that did not like the first bytes (see
   * {@link DetectingHandler}), or by the application (a limit, no route).
   *
   * @param label a short, stable label for metrics and logs, e.g. {@code no_route}
   * @param detail what was refused and why
   */
  record Rejected(String label, String detail) implements CloseReason {}

  /** An I/O error or an exception thrown by a handler. */
  record Error(Throwable cause) implements CloseReason {
    @Override
    public String label() {
      return "error";
    }
  }

  /**
   * The TLS layer ended the connection.
   *
   * @param kind what went wrong
   * @param detail a readable description (the alert, the certificate problem, ...)
   * @param cause the exception behind it, or null
   */
  record TlsFailure(Kind kind, String detail, Throwable cause) implements CloseReason {

    /** The kinds of TLS failure. */
    public enum Kind {
      /** The handshake failed: bad input, no common parameters, an untrusted certificate... */
      HANDSHAKE_FAILED("tls_handshake_failed"),
      /** The handshake did not finish within the configured timeout. */
      HANDSHAKE_TIMEOUT("tls_handshake_timeout"),
      /** After the handshake: a bad or oversized record, or a fatal alert. */
      PROTOCOL_ERROR("tls_protocol_error"),
      /**
       * A TLS 1.2 client started a new handshake on an established connection: refused, as it costs
       * a full handshake on the loop and escapes every rate limit.
       */
      RENEGOTIATION_REFUSED("tls_renegotiation_refused"),
      /** The peer closed the TCP connection without close_notify (possibly mid-record). */
      TRUNCATED("tls_truncated");

      private final String label;

      Kind(String label) {
        this.label = label;
      }
    }

    @Override
    public String label() {
      return kind.label;
    }

    @Override
    public String toString() {
      return "TlsFailure[" + kind.label + ": " + detail + "]";
    }
  }

  /** The canonical normal close. */
  CloseReason NORMAL = new Normal();

  /** The canonical local reset. */
  CloseReason LOCAL_RESET = new LocalReset();

  /** The canonical shutdown. */
  CloseReason SHUTDOWN = new Shutdown();
}
