package dev.sluice.bench.integrity;

import dev.sluice.bench.harness.Params;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The integrity checks' self-test: {@code --corrupt-at N} makes the peer flip the byte at stream
 * offset N of what it sends (or hashes), so a run must report FAIL. Off unless asked for.
 *
 * @param offset the stream offset to flip, or -1 for none
 */
public record Corruption(long offset) {
  /** The option's name. */
  public static final String OPTION = "corrupt-at";

  /** No corruption. */
  public static final Corruption NONE = new Corruption(-1);

  /** Reads the option from {@code params}; absent or negative means none. */
  public static Corruption from(Params params) {
    if (!params.has(OPTION) || params.string(OPTION).equals("-1")) {
      return NONE;
    }
    return new Corruption(params.count(OPTION));
  }

  /**
   * Flips the target byte if it lies in {@code data} (position to limit), which holds the stream
   * from {@code streamOffset}.
   */
  public void apply(ByteBuffer data, long streamOffset) {
    if (offset >= streamOffset && offset < streamOffset + data.remaining()) {
      int index = data.position() + (int) (offset - streamOffset);
      data.put(index, (byte) ~data.get(index));
    }
  }

  /** As {@link #apply(ByteBuffer, long)} for a segment holding the stream from {@code start}. */
  public void apply(MemorySegment data, long streamOffset) {
    if (offset >= streamOffset && offset < streamOffset + data.byteSize()) {
      long index = offset - streamOffset;
      data.set(ValueLayout.JAVA_BYTE, index, (byte) ~data.get(ValueLayout.JAVA_BYTE, index));
    }
  }
}
