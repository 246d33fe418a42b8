package dev.sluice.net;

import java.io.IOException;

/** A write or other operation hit a connection that is closed, or whose output is shut down. */
public final class ConnectionClosedException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient CloseReason reason;

  /**
   * @param message what was refused and why
   * @param reason why the connection closed, or null when only its output was shut down
   */
  public ConnectionClosedException(String message, CloseReason reason) {
    super(message, reason instanceof CloseReason.Error(Throwable cause) ? cause : null);
    this.reason = reason;
  }

  /**
   * The exception for an operation refused because {@code what} (e.g. "connection 7") to {@code
   * remote} closed with {@code reason} (null while the close is still under way).
   */
  public static ConnectionClosedException closed(
      String what, java.net.SocketAddress remote, CloseReason reason) {
    String why =
        switch (reason) {
          case null -> "closing";
          case CloseReason.PeerReset(String detail) -> "peer_reset: " + detail;
          default -> reason.label();
        };
    return new ConnectionClosedException(
        what + " to " + remote + " is closed (" + why + ")", reason);
  }

  /** Why the connection closed, or null when only its output was shut down. */
  public CloseReason reason() {
    return reason;
  }
}
