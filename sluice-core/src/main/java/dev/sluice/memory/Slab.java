package dev.sluice.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A native read slab owned by one event loop. Its memory comes from a confined arena created on the
 * loop thread, so it is freed deterministically (and only) by that thread.
 */
public final class Slab {
  private final Arena arena;
  private final MemorySegment segment;
  private final ByteBuffer buffer;
  private final SlabPool pool;
  private final Object leakToken;

  Slab(SlabPool pool, int size) {
    this.pool = pool;
    this.arena = Arena.ofConfined();
    this.segment = arena.allocate(size, 64);
    this.buffer = segment.asByteBuffer();
    this.leakToken = LeakTracker.trackSlab(this);
  }

  /** The whole slab as a direct buffer; the loop resets position and limit before each use. */
  public ByteBuffer buffer() {
    return buffer;
  }

  /** Capacity of the slab in bytes. */
  public int size() {
    return (int) segment.byteSize();
  }

  MemorySegment segment() {
    return segment;
  }

  SlabPool pool() {
    return pool;
  }

  void free() {
    LeakTracker.untrack(leakToken);
    arena.close();
  }
}
