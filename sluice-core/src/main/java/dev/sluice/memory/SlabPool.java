package dev.sluice.memory;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The per-loop pool of read slabs. Only the owning loop thread allocates, recycles and frees slabs;
 * a release from another thread is queued to the loop. There is no lock on the hot path.
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
  public SlabChunk handOff(Slab slab, int length) {
    counters.addHandedOff(1, slabSize);
    return new SlabChunk(slab, length);
  }

  /**
   * Returns a handed-off slab to the pool (or frees it); any thread. A release that arrives after
   * the loop stopped cannot free the memory (only the loop thread may) and stays on the leak
   * tracker's books.
   */
  void release(Slab slab, Object handOffToken) {
    Runnable giveBack =
        () -> {
          LeakTracker.untrack(handOffToken);
          recycle(slab, true);
        };
    if (Thread.currentThread() == ownerThread) {
      giveBack.run();
    } else {
      try {
        owner.execute(giveBack);
      } catch (RejectedExecutionException loopStopped) {
        // The slab is lost with its loop; the leak tracker still lists the chunk.
      }
    }
  }

  /** Returns a slab that the loop itself used; loop thread only. */
  public void recycle(Slab slab) {
    recycle(slab, false);
  }

  private void recycle(Slab slab, boolean handedOff) {
    if (handedOff) {
      counters.addHandedOff(-1, -slabSize);
    }
    if (!closed && free.size() < maxPooled) {
      free.addFirst(slab);
    } else {
      slab.free();
      counters.addSlabBytesReserved(-slabSize);
    }
  }

  /** Frees every pooled slab; slabs still handed off are freed when released. Loop thread only. */
  public void close() {
    closed = true;
    Slab slab;
    while ((slab = free.pollFirst()) != null) {
      slab.free();
      counters.addSlabBytesReserved(-slabSize);
    }
  }
}
