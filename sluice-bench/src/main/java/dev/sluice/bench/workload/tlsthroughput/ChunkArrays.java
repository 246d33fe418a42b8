package dev.sluice.bench.workload.tlsthroughput;

import java.util.ArrayDeque;

/**
 * The send-chunk arrays of one server, recycled across its connections. Enough for a full write
 * queue are allocated (and so touched) up front, before any baseline: how many a transfer needs at
 * once depends on when each implementation completes a write, and one 16 MiB array allocated during
 * the measured transfer showed as 16 MiB of RSS growth. One event loop thread uses it.
 */
final class ChunkArrays {
  private final int chunkSize;
  private final ArrayDeque<byte[]> free = new ArrayDeque<>();

  /** Pre-allocated: what covers 1 MiB in flight (both arms' watermarks are lower), and 4 more. */
  private static final int PREALLOCATED_BYTES = 1 << 20;

  ChunkArrays(int chunkSize) {
    this.chunkSize = chunkSize;
    int count = PREALLOCATED_BYTES / chunkSize + 4;
    for (int i = 0; i < count; i++) {
      free.push(new byte[chunkSize]);
    }
  }

  /** The size of every array. */
  int chunkSize() {
    return chunkSize;
  }

  /** A free array, or a new one. */
  byte[] take() {
    return free.isEmpty() ? new byte[chunkSize] : free.pop();
  }

  /** Takes back an array whose write has completed. */
  void recycle(byte[] array) {
    free.push(array);
  }
}
