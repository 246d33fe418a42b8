package dev.sluice.testing;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import dev.sluice.memory.SlabChunk;
import java.nio.ByteBuffer;

/**
 * The contract of every chunk handed to application code: exact-size (capacity == remaining ==
 * length, position and array offset 0), and a copy unless the read was larger than the copy
 * threshold.
 */
public final class ExactSize {
  private ExactSize() {}

  /**
   * Checks {@code chunk} against the contract.
   *
   * @throws AssertionError naming what is wrong
   */
  public static void check(Chunk chunk, int copyThreshold) {
    int length = chunk.length();
    ByteBuffer view = chunk.buffer();
    if (view.position() != 0 || view.remaining() != length || view.capacity() != length) {
      throw new AssertionError(
          chunk
              + " is not exact-size: position "
              + view.position()
              + ", remaining "
              + view.remaining()
              + ", capacity "
              + view.capacity()
              + ", length "
              + length);
    }
    switch (chunk) {
      case HeapChunk heap -> {
        if (heap.bytes().length != length || view.arrayOffset() != 0) {
          throw new AssertionError(
              chunk
                  + " views "
                  + heap.bytes().length
                  + " bytes at array offset "
                  + view.arrayOffset());
        }
        if (length > copyThreshold) {
          throw new AssertionError(
              chunk + " was copied although it is larger than the copy threshold " + copyThreshold);
        }
      }
      case SlabChunk slab -> {
        if (length <= copyThreshold) {
          throw new AssertionError(
              slab
                  + " hands off a whole slab for a read within the copy threshold "
                  + copyThreshold);
        }
      }
    }
  }
}
