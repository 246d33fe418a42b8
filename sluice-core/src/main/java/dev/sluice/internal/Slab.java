package dev.sluice.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A native read slab owned by one event loop, which alone reads into it and pools it.
 *
 * <p>Its arena is shared, not confined: a slab handed off as a {@link dev.sluice.memory.SlabChunk}
 * belongs to the application, which may read it on any thread, and a confined segment's buffer
 * throws {@link WrongThreadException} off its owner thread. The price of a shared arena, a
 * handshake with every thread on close, is paid only when a slab is freed (pool overflow,
 * shutdown), not per read. Freeing may happen on any thread.
 */
public final class Slab {
  private final Arena arena;
  private final MemorySegment segment;
  private final ByteBuffer buffer;
  private final SlabPool pool;
  private final Object leakToken;

  Slab(SlabPool pool, int size) {
    this.pool = pool;
    this.arena = Arena.ofShared();
    this.segment = arena.allocate(size, 64);
    this.buffer = segment.asByteBuffer();
    this.leakToken = LeakRegistry.track("slab of " + size + " B");
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
    LeakRegistry.untrack(leakToken);
    arena.close();
  }
}
