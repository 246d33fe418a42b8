package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;

/**
 * A handler that keeps what it reads: every read arrives as an exact-size {@link Chunk} it owns,
 * taken from the loop's slab under the copy-out rule (a copy up to the copy threshold, the whole
 * slab handed off above it). Keep the chunk, or {@link Chunk#release() release} it when done.
 */
@FunctionalInterface
public interface ChunkHandler extends ConnectionHandler {

  /** Bytes arrived, as a chunk the handler now owns. */
  void onChunk(Connection connection, Chunk chunk);

  @Override
  default void onRead(Connection connection, BorrowedBytes bytes) {
    onChunk(connection, bytes.take());
  }
}
