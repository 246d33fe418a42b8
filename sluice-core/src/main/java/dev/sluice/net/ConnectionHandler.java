package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;

/**
 * Callbacks of one connection. All of them run on the connection's event loop, one at a time; an
 * exception thrown from one closes the connection with {@link CloseReason.Error}.
 *
 * <p>Reads arrive lent ({@link #onRead}): a handler that consumes bytes inside the callback (a
 * forwarder writing them on with {@link Connection#writeTransient}, a parser) implements this
 * interface directly; one that keeps bytes implements {@link ChunkHandler} and receives each read
 * as an exact-size chunk it owns.
 */
public interface ConnectionHandler {

  /** The connection is established and registered; reads start after this returns. */
  default void onActive(Connection connection) {}

  /**
   * Bytes arrived, lent in the loop's read slab for this call only: consume them now ({@link
   * Connection#writeTransient} them on, parse them) or keep them with {@link BorrowedBytes#take()}
   * or {@link BorrowedBytes#copy()}.
   */
  void onRead(Connection connection, BorrowedBytes bytes);

  /**
   * Asked before each socket read: false pauses reading, as {@link Connection#pauseReading()}
   * would, until the handler resumes it. An owner that bounds the bytes a whole process holds in
   * flight refuses reads here while the bound is reached, before the bytes are read.
   */
  default boolean mayRead(Connection connection) {
    return true;
  }

  /**
   * The peer shut down its output (EOF). The connection stays open for writing; the default shuts
   * down this side's output too once pending writes are flushed, which completes the close.
   */
  default void onEndOfInput(Connection connection) {
    connection.shutdownOutput();
  }

  /**
   * Pending writes crossed the high watermark ({@code false}) or drained to the low watermark
   * ({@code true}); delivered after the write or flush that caused it, and only while it holds. An
   * owner that feeds this connection from another should pause and resume reading its source here.
   */
  default void onWritabilityChanged(Connection connection, boolean writable) {}

  /** The connection closed; called exactly once for every connection that became active. */
  default void onClose(Connection connection, CloseReason reason) {}
}
