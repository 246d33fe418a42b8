package dev.sluice.memory;

/**
 * Memory held by one event loop. Only the loop thread writes (single writer, so the
 * read-modify-write below is safe without atomics); the fields are volatile so monitoring threads
 * read whole, current values through {@link #snapshot()}. None of these change on a small read.
 */
public final class MemoryCounters {
  private volatile long slabBytesReserved;
  private volatile long handedOffChunks;
  private volatile long handedOffBytes;
  private volatile long pendingWriteBytes;
  private volatile long pendingCopyBytes;
  private volatile long stagingBytes;
  private volatile long tlsBufferBytes;
  private volatile long tlsHeldCiphertextBytes;

  void addSlabBytesReserved(long delta) {
    slabBytesReserved = slabBytesReserved + delta;
  }

  void addHandedOff(long chunks, long bytes) {
    handedOffChunks = handedOffChunks + chunks;
    handedOffBytes = handedOffBytes + bytes;
  }

  /** Adds to the bytes queued by reference in write queues. Loop thread only. */
  public void addPendingWriteBytes(long delta) {
    pendingWriteBytes = pendingWriteBytes + delta;
  }

  /** Adds to the bytes held in exact-size remainder copies. Loop thread only. */
  public void addPendingCopyBytes(long delta) {
    pendingCopyBytes = pendingCopyBytes + delta;
  }

  /** Adds to the bytes of the loop's direct staging buffers. Loop thread only. */
  public void addStagingBytes(long delta) {
    stagingBytes = stagingBytes + delta;
  }

  /** Adds to the bytes of the loop's TLS working buffers. Loop thread only. */
  public void addTlsBufferBytes(long delta) {
    tlsBufferBytes = tlsBufferBytes + delta;
  }

  /** Adds to the ciphertext TLS connections hold between reads. Loop thread only. */
  public void addTlsHeldCiphertextBytes(long delta) {
    tlsHeldCiphertextBytes = tlsHeldCiphertextBytes + delta;
  }

  /** A point-in-time view, safe to take from any thread. */
  public MemoryStats snapshot() {
    return new MemoryStats(
        slabBytesReserved,
        handedOffChunks,
        handedOffBytes,
        pendingWriteBytes,
        pendingCopyBytes,
        stagingBytes,
        tlsBufferBytes,
        tlsHeldCiphertextBytes);
  }
}
