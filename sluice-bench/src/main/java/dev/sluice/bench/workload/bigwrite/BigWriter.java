package dev.sluice.bench.workload.bigwrite;

import java.nio.ByteBuffer;

/** One implementation's side of the big write: one connection at a time, one write on it. */
interface BigWriter extends AutoCloseable {

  /** Opens a connection to the peer and sends the 8-byte count of bytes that will follow. */
  void connect(long bytes) throws Exception;

  /**
   * Writes all of {@code payload} with one write call on the current connection and waits for its
   * completion.
   *
   * @return nanoseconds from the write call to the completion callback
   */
  long write(ByteBuffer payload) throws Exception;

  /** Shuts down the current connection's output once the write is done. */
  void finish();

  /** Closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
