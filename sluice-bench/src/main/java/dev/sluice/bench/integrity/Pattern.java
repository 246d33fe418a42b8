package dev.sluice.bench.integrity;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The payload every workload sends: a stream cut into 4 KiB blocks, each starting with its own
 * stream offset (8 bytes, big-endian) followed by a fixed, non-constant filler. A lost, repeated,
 * reordered or corrupted byte changes what a receiver sees at that offset, so {@link
 * PatternVerifier} catches it; the fixed filler lets it compare with a vectorised mismatch.
 */
public final class Pattern {
  /** Bytes per block; each block begins with its stream offset. */
  public static final int BLOCK = 4096;

  /** Bytes of the offset stamp at the start of each block. */
  public static final int STAMP = Long.BYTES;

  private static final byte[] FILLER = filler();
  static final MemorySegment FILLER_SEGMENT = MemorySegment.ofArray(FILLER);

  private Pattern() {}

  private static byte[] filler() {
    byte[] filler = new byte[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
      filler[i] = (byte) (i * 167 + (i >>> 8) + 41);
    }
    return filler;
  }

  /** The byte at {@code offset} of the stream. */
  public static byte byteAt(long offset) {
    int inBlock = (int) (offset & (BLOCK - 1));
    if (inBlock < STAMP) {
      long blockStart = offset - inBlock;
      return (byte) (blockStart >>> (8 * (STAMP - 1 - inBlock)));
    }
    return FILLER[inBlock];
  }

  /**
   * Fills {@code target} between its position and limit with the stream from {@code streamOffset};
   * position and limit stay as they are.
   */
  public static void fill(ByteBuffer target, long streamOffset) {
    fill(MemorySegment.ofBuffer(target), streamOffset);
  }

  /** Fills all of {@code target} with the stream from {@code streamOffset}. */
  public static void fill(MemorySegment target, long streamOffset) {
    long length = target.byteSize();
    long done = 0;
    while (done < length) {
      long offset = streamOffset + done;
      int inBlock = (int) (offset & (BLOCK - 1));
      int n = (int) Math.min(BLOCK - inBlock, length - done);
      int i = 0;
      for (; i < n && inBlock + i < STAMP; i++) {
        target.set(ValueLayout.JAVA_BYTE, done + i, byteAt(offset + i));
      }
      if (i < n) {
        MemorySegment.copy(FILLER_SEGMENT, inBlock + i, target, done + i, n - i);
      }
      done += n;
    }
  }

  /** A new array holding {@code length} bytes of the stream from {@code streamOffset}. */
  public static byte[] bytes(long streamOffset, int length) {
    byte[] bytes = new byte[length];
    fill(MemorySegment.ofArray(bytes), streamOffset);
    return bytes;
  }
}
