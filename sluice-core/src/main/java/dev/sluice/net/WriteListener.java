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
}
