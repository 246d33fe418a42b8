package dev.sluice.testing;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Checks a received stream against a {@link PayloadPattern}, piece by piece as it arrives, and
 * remembers the first wrong byte. Not thread-safe: one verifier per stream.
 */
public final class PatternVerifier {
  private final PayloadPattern pattern;
  private long offset;
  private String failure;

  PatternVerifier(PayloadPattern pattern, long startOffset) {
    this.pattern = pattern;
    this.offset = startOffset;
  }

  /**
   * Checks the bytes between {@code data}'s position and limit, which must come next in the stream;
   * position and limit stay as they are.
   *
   * @return false once any byte so far was wrong
   */
  public boolean update(ByteBuffer data) {
    return update(MemorySegment.ofBuffer(data));
  }

  /** Checks all of {@code data}, which must come next in the stream. */
  public boolean update(MemorySegment data) {
    if (failure != null) {
      return false;
    }
    MemorySegment filler = pattern.fillerSegment();
    long length = data.byteSize();
    long done = 0;
    while (done < length) {
      long at = offset + done;
      int inBlock = (int) (at & (PayloadPattern.BLOCK - 1));
      int n = (int) Math.min(PayloadPattern.BLOCK - inBlock, length - done);
      int i = 0;
      for (; i < n && inBlock + i < PayloadPattern.STAMP; i++) {
        byte got = data.get(ValueLayout.JAVA_BYTE, done + i);
        if (got != pattern.byteAt(at + i)) {
          return fail(at + i, got);
        }
      }
      if (i < n) {
        long mismatch =
            MemorySegment.mismatch(data, done + i, done + n, filler, inBlock + i, inBlock + n);
        if (mismatch >= 0) {
          return fail(at + i + mismatch, data.get(ValueLayout.JAVA_BYTE, done + i + mismatch));
        }
      }
      done += n;
    }
    offset += length;
    return true;
  }

  /**
   * Ends the stream: it must have been exactly {@code expectedEnd} bytes long (counting from offset
   * 0).
   *
   * @return whether every byte was right and none was missing or extra
   */
  public boolean finish(long expectedEnd) {
    if (failure == null && offset != expectedEnd) {
      failure = "received " + offset + " bytes, expected " + expectedEnd;
    }
    return failure == null;
  }

  /** The stream offset of the next expected byte. */
  public long offset() {
    return offset;
  }

  /** Whether every byte so far was right. */
  public boolean ok() {
    return failure == null;
  }

  /** What went wrong first, or null. */
  public String failure() {
    return failure;
  }

  private boolean fail(long at, byte got) {
    failure =
        String.format(
            Locale.ROOT,
            "wrong byte at stream offset %d: expected 0x%02x, got 0x%02x",
            at,
            pattern.byteAt(at) & 0xff,
            got & 0xff);
    return false;
  }
}
