package dev.sluice.testing;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;

/**
 * A patterned payload in one buffer, with the digest a receiver must arrive at. Close it to free a
 * direct payload's native memory at once rather than at some later GC.
 */
public final class Payload implements AutoCloseable {
  private final PayloadPattern pattern;
  private final ByteBuffer buffer;
  private final Arena arena;

  Payload(PayloadPattern pattern, ByteBuffer buffer, Arena arena) {
    this.pattern = pattern;
    this.buffer = buffer;
    this.arena = arena;
  }

  /** Payload size in bytes. */
  public int size() {
    return buffer.limit();
  }

  /** Whether the payload is in native memory. */
  public boolean isDirect() {
    return buffer.isDirect();
  }

  /** A fresh view of the whole payload (position 0, limit {@link #size()}). */
  public ByteBuffer buffer() {
    return buffer.duplicate().clear().limit(size());
  }

  /**
   * The payload cut into {@code pieces} consecutive views of uneven sizes (the later ones larger),
   * so that writing them back to back queues several buffers. Fewer pieces for tiny payloads.
   */
  public ByteBuffer[] pieces(int pieces) {
    int count = Math.max(1, Math.min(pieces, size()));
    ByteBuffer[] views = new ByteBuffer[count];
    long weightSum = (long) count * (count + 1) / 2;
    int start = 0;
    for (int i = 0; i < count; i++) {
      int end =
          i == count - 1
              ? size()
              : (int) ((long) size() * ((long) (i + 1) * (i + 2) / 2) / weightSum);
      end = Math.max(end, start + 1);
      views[i] = buffer.duplicate().limit(end).position(start).slice();
      start = end;
    }
    return views;
  }

  /** The SHA-256 of the whole payload, as lower-case hex. */
  public String sha256() {
    return pattern.sha256(size());
  }

  @Override
  public void close() {
    if (arena != null) {
      arena.close();
    }
  }
}
