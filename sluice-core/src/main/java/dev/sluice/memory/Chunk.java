package dev.sluice.memory;

import java.nio.ByteBuffer;

/**
 * Bytes read from a connection and handed to application code, which now owns them.
 *
 * <p>A chunk is exact-size: {@link #buffer()} has {@code position == 0} and {@code capacity ==
 * remaining == length()}. Small reads are copies ({@link HeapChunk}); reads larger than the copy
 * threshold may hand over the whole read slab ({@link SlabChunk}), which must be {@link #release()
 * released} so the loop can reuse it.
 */
public sealed interface Chunk permits HeapChunk, SlabChunk {

  /** Number of bytes in this chunk. */
  int length();

  /**
   * A fresh buffer over the chunk's bytes: position 0, limit and capacity {@link #length()}. Each
   * call returns a new view, so callers can move its position freely.
   *
   * @throws IllegalStateException if the chunk was released
   */
  ByteBuffer buffer();

  /**
   * Gives the memory back. For a heap copy this only drops the reference; for a handed-off slab it
   * returns the slab to its loop's pool. Idempotent; the bytes must not be used afterwards.
   */
  void release();
}
