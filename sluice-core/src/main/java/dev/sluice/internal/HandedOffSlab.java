package dev.sluice.internal;

import dev.sluice.memory.SlabChunk;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/** A whole read slab handed to application code as a chunk, until it is released. */
public final class HandedOffSlab implements SlabChunk {
  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED =
          MethodHandles.lookup().findVarHandle(HandedOffSlab.class, "released", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Slab slab;
  private final int length;
  private final Object leakToken;

  @SuppressWarnings("unused") // accessed through RELEASED
  private volatile boolean released;

  HandedOffSlab(Slab slab, int length) {
    this.slab = slab;
    this.length = length;
    this.leakToken = LeakRegistry.track("handed-off " + this);
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public int slabSize() {
    return slab.size();
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
