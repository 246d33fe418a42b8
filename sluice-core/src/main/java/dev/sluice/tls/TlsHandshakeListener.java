package dev.sluice.tls;

import dev.sluice.net.CloseReason;

/**
 * Implemented by a {@link dev.sluice.net.ConnectionHandler} that wants to hear of TLS connections
 * that closed before their handshake finished. Such a connection never became active, so its
 * handler's {@code onActive} and {@code onClose} are not called; this is, exactly once.
 */
@FunctionalInterface
public interface TlsHandshakeListener {

  /**
   * The handshake failed, timed out, or the transport closed before it finished.
   *
   * @param connection the connection (for its addresses and id)
   * @param reason why: usually a {@link CloseReason.TlsFailure}, else the transport's reason
   */
  void onHandshakeFailed(TlsConnection connection, CloseReason reason);
}
