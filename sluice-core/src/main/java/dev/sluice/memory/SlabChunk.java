package dev.sluice.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A read larger than the copy threshold, handed over without a copy: the chunk owns the whole read
 * slab until {@link #release()}. It wastes at most slab size minus copy threshold.
 */
public final class SlabChunk implements Chunk {
  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED = MethodHandles.lookup().findVarHandle(SlabChunk.class, "released", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Slab slab;
  private final int length;
  private final Object leakToken;

  @SuppressWarnings("unused") // accessed through RELEASED
  private volatile boolean released;

  SlabChunk(Slab slab, int length) {
    this.slab = slab;
    this.length = length;
    this.leakToken = LeakTracker.trackHandOff(this);
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public ByteBuffer buffer() {
    if (released) {
      throw new IllegalStateException("chunk already released");
    }
    return slab.segment().asSlice(0, length).asByteBuffer();
  }

  @Override
  public void release() {
    if (RELEASED.compareAndSet(this, false, true)) {
      slab.pool().release(slab, leakToken);
    }
  }

  @Override
  public String toString() {
    return "SlabChunk[" + length + " B of a " + slab.size() + " B slab]";
  }
}
