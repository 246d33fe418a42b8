package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;

/**
 * Callbacks of one connection. All of them run on the connection's event loop, one at a time; an
 * exception thrown from one closes the connection with {@link CloseReason.Error}.
 */
public interface ConnectionHandler {

  /** The connection is established and registered; reads start after this returns. */
  default void onActive(Connection connection) {}

  /**
   * Bytes arrived, as an exact-size chunk the handler now owns (see {@link Chunk}): keep it, or
   * {@link Chunk#release() release} it when done.
   */
  void onRead(Connection connection, Chunk chunk);

  /**
   * Bytes arrived, lent in the loop's read slab for this call only. The default takes them under
   * the copy-out rule and passes the chunk to {@link #onRead}; forwarders override this to write
   * the bytes on without keeping them.
   */
  default void onReadBorrowed(Connection connection, BorrowedBytes bytes) {
    onRead(connection, bytes.take());
  }

  /**
   * The peer shut down its output (EOF). The connection stays open for writing; the default shuts
   * down this side's output too once pending writes are flushed, which completes the close.
   */
  default void onEndOfInput(Connection connection) {
    connection.shutdownOutput();
  }

  /**
   * Pending writes crossed the high watermark ({@code false}) or drained below the low watermark
   * ({@code true}). An owner that feeds this connection from another should pause and resume
   * reading its source here.
   */
  default void onWritabilityChanged(Connection connection, boolean writable) {}

  /** The connection closed; called exactly once for every connection that became active. */
  default void onClose(Connection connection, CloseReason reason) {}
}
