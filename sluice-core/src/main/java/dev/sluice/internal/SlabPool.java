package dev.sluice.internal;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The per-loop pool of read slabs. Only the owning loop thread allocates and pools slabs; a release
 * from another thread is queued to the loop. There is no lock on the hot path. A release that
 * arrives once the loop has stopped frees the slab on the releasing thread.
 */
public final class SlabPool {
  private final int slabSize;
  private final int maxPooled;
  private final MemoryCounters counters;
  private final Executor owner;
  private final ArrayDeque<Slab> free = new ArrayDeque<>();
  private Thread ownerThread;
  private boolean closed;

  /**
   * @param slabSize bytes per slab
   * @param maxPooled free slabs kept for reuse; more are freed at once
   * @param counters where reserved and handed-off bytes are counted
   * @param owner the loop's executor, used for releases from other threads
   */
  public SlabPool(int slabSize, int maxPooled, MemoryCounters counters, Executor owner) {
    this.slabSize = slabSize;
    this.maxPooled = maxPooled;
    this.counters = counters;
    this.owner = owner;
  }

  /** Binds the pool to the loop thread; call it once, from that thread. */
  public void bindToCurrentThread() {
    ownerThread = Thread.currentThread();
  }

  /** Bytes per slab. */
  public int slabSize() {
    return slabSize;
  }

  /** A slab for reading: a pooled one if any, else a new one. Loop thread only. */
  public Slab acquire() {
    Slab slab = free.pollFirst();
    if (slab == null) {
      slab = new Slab(this, slabSize);
      counters.addSlabBytesReserved(slabSize);
    }
    return slab;
  }

  /** Hands a read slab over to application code as a chunk of {@code length} bytes. */
  public HandedOffSlab handOff(Slab slab, int length) {
    counters.addHandedOff(1, slabSize);
    return new HandedOffSlab(slab, length);
  }

  /**
   * Returns a handed-off slab to the pool; any thread. From another thread the slab goes back
   * through the loop's task queue; once the loop has stopped it is freed here and now.
   */
  void release(Slab slab, Object handOffToken) {
    if (Thread.currentThread() == ownerThread) {
      giveBack(slab, handOffToken);
      return;
    }
    try {
      owner.execute(() -> giveBack(slab, handOffToken));
    } catch (RejectedExecutionException loopStopped) {
      // The loop has stopped and closed this pool: nothing else touches the slab any more.
      LeakRegistry.untrack(handOffToken);
      counters.addHandedOff(-1, -slabSize);
      freeSlab(slab);
    }
  }

  private void giveBack(Slab slab, Object handOffToken) {
    LeakRegistry.untrack(handOffToken);
    counters.addHandedOff(-1, -slabSize);
    recycle(slab);
  }

  /** Returns a slab that the loop itself used, to the pool or (pool full or closed) freed. */
  public void recycle(Slab slab) {
    if (!closed && free.size() < maxPooled) {
      free.addFirst(slab);
    } else {
      freeSlab(slab);
    }
  }

  private void freeSlab(Slab slab) {
    slab.free();
    counters.addSlabBytesReserved(-slabSize);
  }

  /** Frees every pooled slab; slabs still handed off are freed when released. Loop thread only. */
  public void close() {
    closed = true;
    Slab slab;
    while ((slab = free.pollFirst()) != null) {
      freeSlab(slab);
    }
  }
}
