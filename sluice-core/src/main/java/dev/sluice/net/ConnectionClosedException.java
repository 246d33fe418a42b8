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

  /** Why the connection closed, or null when only its output was shut down. */
  public CloseReason reason() {
    return reason;
  }
}
