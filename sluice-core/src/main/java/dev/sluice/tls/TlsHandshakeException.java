package dev.sluice.tls;

import dev.sluice.net.CloseReason;
import java.net.SocketAddress;
import javax.net.ssl.SSLHandshakeException;

/** A TLS client connection closed before its handshake finished; {@link #reason()} says why. */
public final class TlsHandshakeException extends SSLHandshakeException {
  private static final long serialVersionUID = 1L;

  private final transient CloseReason reason;

  TlsHandshakeException(SocketAddress peer, CloseReason reason) {
    super("TLS handshake with " + peer + " failed: " + describe(reason));
    this.reason = reason;
    if (reason instanceof CloseReason.TlsFailure failure && failure.cause() != null) {
      initCause(failure.cause());
    } else if (reason instanceof CloseReason.Error(Throwable cause)) {
      initCause(cause);
    }
  }

  /** Why the connection closed. */
  public CloseReason reason() {
    return reason;
  }

  private static String describe(CloseReason reason) {
    return reason instanceof CloseReason.TlsFailure failure
        ? failure.label() + ": " + failure.detail()
        : reason.label();
  }
}
