package dev.sluice.memory;

/**
 * Memory that Sluice holds, per loop or summed over a group.
 *
 * @param slabBytesReserved native read-slab bytes allocated (current, pooled and handed off)
 * @param handedOffChunks slab chunks handed to application code and not yet released
 * @param handedOffBytes slab bytes those chunks keep alive
 * @param pendingWriteBytes bytes queued by reference in write queues (owned by callers)
 * @param pendingCopyBytes bytes Sluice copied for transient writes the socket did not take at once
 * @param stagingBytes direct staging buffers used to write heap buffers in bounded slices
 * @param tlsBufferBytes native TLS working buffers, owned by loops (not by connections)
 * @param tlsHeldCiphertextBytes ciphertext TLS connections keep between reads, at exact size: a
 *     trailing partial record, or the unread rest of a read when the application paused reading
 */
public record MemoryStats(
    long slabBytesReserved,
    long handedOffChunks,
    long handedOffBytes,
    long pendingWriteBytes,
    long pendingCopyBytes,
    long stagingBytes,
    long tlsBufferBytes,
    long tlsHeldCiphertextBytes) {

  /** All zero. */
  public static final MemoryStats ZERO = new MemoryStats(0, 0, 0, 0, 0, 0, 0, 0);

  /** Native memory Sluice itself allocated: slabs, staging and TLS working buffers. */
  public long nativeBytes() {
    return slabBytesReserved + stagingBytes + tlsBufferBytes;
  }

  /** Field-wise sum. */
  public MemoryStats plus(MemoryStats o) {
    return new MemoryStats(
        slabBytesReserved + o.slabBytesReserved,
        handedOffChunks + o.handedOffChunks,
        handedOffBytes + o.handedOffBytes,
        pendingWriteBytes + o.pendingWriteBytes,
        pendingCopyBytes + o.pendingCopyBytes,
        stagingBytes + o.stagingBytes,
        tlsBufferBytes + o.tlsBufferBytes,
        tlsHeldCiphertextBytes + o.tlsHeldCiphertextBytes);
  }
}
