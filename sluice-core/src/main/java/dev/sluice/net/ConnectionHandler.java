package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import java.nio.ByteBuffer;

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

  /**
   * Asked before each read on a transport that can splice (epoll): a connection of the same loop to
   * move this read to inside the kernel (splice(2) through a pipe, never through the loop's slab),
   * or null, the default, for an ordinary read. The read is ordinary anyway when either socket
   * cannot splice, {@code target} has writes queued or its output shut, or the loop's pipes are all
   * held. A pipe costs two descriptors: return a target only while the connection is streaming (its
   * reads fill), and implement {@link #onSpliced} to hear what moved.
   */
  default Connection spliceTarget(Connection connection) {
    return null;
  }

  /**
   * A read went to {@code target} inside the kernel: {@code bytes} were read. What target's socket
   * did not take at once is in {@code rest}, copied out at exact size (null when it took all): the
   * handler's to write to target, now, before anything else, or the bytes are lost.
   */
  default void onSpliced(Connection connection, Connection target, int bytes, ByteBuffer rest) {
    throw new IllegalStateException(
        getClass().getName() + " returned a splice target but does not implement onSpliced");
  }
}
