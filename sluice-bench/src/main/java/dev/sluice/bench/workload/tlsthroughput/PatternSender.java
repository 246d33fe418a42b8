package dev.sluice.bench.workload.tlsthroughput;

import dev.sluice.testing.PayloadPattern;
import java.nio.ByteBuffer;

/**
 * The application logic of one sending connection, the same in every arm: read an 8-byte request
 * (how many bytes to send), then send that much pattern in chunks of a fixed size, as long as the
 * connection is writable; the arm calls {@link #next()} again when it becomes writable, and ends
 * the stream when {@link #finished()}.
 *
 * <p>Chunks are heap arrays from {@link ChunkArrays}, given back once their write completes ({@link
 * #recycle}) and filled afresh each time: the sender allocates nothing per chunk in steady state,
 * so the sender's memory figures show the library's buffers rather than garbage payload arrays (16
 * MiB chunks allocated afresh grew the heap, and RSS, by over 200 MiB in both arms).
 */
final class PatternSender {
  private final ChunkArrays arrays;
  private final ByteBuffer request = ByteBuffer.allocate(Long.BYTES);
  private long total = -1;
  private long sent;

  PatternSender(ChunkArrays arrays) {
    this.arrays = arrays;
  }

  /**
   * Takes request bytes from {@code in} (anything after the request is ignored).
   *
   * @return true once the whole request has arrived, the first time only
   */
  boolean acceptRequest(ByteBuffer in) {
    if (total >= 0) {
      return false;
    }
    int n = Math.min(in.remaining(), request.remaining());
    request.put(request.position(), in, in.position(), n);
    request.position(request.position() + n);
    if (request.hasRemaining()) {
      return false;
    }
    total = request.getLong(0);
    return true;
  }

  /**
   * The next chunk to write (a heap buffer over a recycled array), or null when all are sent or the
   * request has not arrived. The offset advances before the caller writes, so a writability
   * callback that runs inside the write continues from the right place.
   */
  ByteBuffer next() {
    if (total < 0 || sent >= total) {
      return null;
    }
    int n = (int) Math.min(arrays.chunkSize(), total - sent);
    long offset = sent;
    sent += n;
    ByteBuffer chunk = ByteBuffer.wrap(arrays.take(), 0, n);
    PayloadPattern.DEFAULT.fill(chunk, offset);
    return chunk;
  }

  /** Takes back the array of a chunk whose write has completed. */
  void recycle(byte[] array) {
    arrays.recycle(array);
  }

  /** Whether every byte asked for has been handed to the connection. */
  boolean finished() {
    return total >= 0 && sent >= total;
  }
}
