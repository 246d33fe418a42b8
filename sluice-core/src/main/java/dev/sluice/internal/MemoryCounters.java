package dev.sluice.internal;

import dev.sluice.memory.MemoryStats;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory held by one event loop, one counter per kind. The loop thread does almost all the
 * counting; a slab released after its loop stopped is counted by the releasing thread, so every
 * counter is atomic. None of them changes on a small read.
 */
public final class MemoryCounters {
  private final AtomicLong slabBytesReserved = new AtomicLong();
  private final AtomicLong handedOffChunks = new AtomicLong();
  private final AtomicLong handedOffBytes = new AtomicLong();
  private final AtomicLong pendingWriteBytes = new AtomicLong();
  private final AtomicLong pendingCopyBytes = new AtomicLong();
  private final AtomicLong stagingBytes = new AtomicLong();
  private final AtomicLong tlsBufferBytes = new AtomicLong();
  private final AtomicLong tlsHeldCiphertextBytes = new AtomicLong();

  void addSlabBytesReserved(long delta) {
    slabBytesReserved.addAndGet(delta);
  }

  void addHandedOff(long chunks, long bytes) {
    handedOffChunks.addAndGet(chunks);
    handedOffBytes.addAndGet(bytes);
  }

  /** Adds to the bytes queued by reference in write queues. */
  public void addPendingWriteBytes(long delta) {
    pendingWriteBytes.addAndGet(delta);
  }

  /** Adds to the bytes held in exact-size remainder copies. */
  public void addPendingCopyBytes(long delta) {
    pendingCopyBytes.addAndGet(delta);
  }

  /** Adds to the bytes of the loop's direct staging buffers. */
  public void addStagingBytes(long delta) {
    stagingBytes.addAndGet(delta);
  }

  /** Adds to the bytes of the loop's TLS working buffers. */
  public void addTlsBufferBytes(long delta) {
    tlsBufferBytes.addAndGet(delta);
  }

  /** Adds to the ciphertext TLS connections hold between reads. */
  public void addTlsHeldCiphertextBytes(long delta) {
    tlsHeldCiphertextBytes.addAndGet(delta);
  }

  /** A point-in-time view, safe to take from any thread. */
  public MemoryStats snapshot() {
    return new MemoryStats(
        slabBytesReserved.get(),
        handedOffChunks.get(),
        handedOffBytes.get(),
        pendingWriteBytes.get(),
        pendingCopyBytes.get(),
        stagingBytes.get(),
        tlsBufferBytes.get(),
        tlsHeldCiphertextBytes.get());
  }
}
