package dev.sluice.net;

/** Told once when a write completed (every byte handed to the socket) or failed. */
@FunctionalInterface
public interface WriteListener {
  /**
   * Runs on the connection's event loop.
   *
   * @param error null on success, else why the write will never complete
   */
  void onWriteComplete(Throwable error);

  /**
   * Tells {@code listener} (if any) of the outcome; a listener that throws is logged, never allowed
   * to break the loop that called it.
   */
  static void notify(WriteListener listener, Throwable error) {
    if (listener == null) {
      return;
    }
    try {
      listener.onWriteComplete(error);
    } catch (Throwable t) {
      System.getLogger("dev.sluice.net")
          .log(System.Logger.Level.WARNING, "a write listener failed", t);
    }
  }
}
