package dev.sluice.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The read slabs one event loop lends reads from: the transport's, and TLS's plaintext slab once a
 * TLS connection ran on the loop. Each lends one buffer object for every read of every connection,
 * so no connection, plain or TLS, may queue it by reference. Loop thread only.
 */
public final class Lenders {
  private ReadSlab[] slabs = new ReadSlab[0];

  /** Adds a slab this loop lends reads from. */
  public void add(ReadSlab slab) {
    slabs = Arrays.copyOf(slabs, slabs.length + 1);
    slabs[slabs.length - 1] = slab;
  }

  /**
   * For a write by reference: refuses {@code buffer} when it is a read this loop lends, or a view
   * of one, which the next read overwrites.
   */
  public void refuse(ByteBuffer buffer) {
    for (ReadSlab slab : slabs) {
      if (slab.lends(buffer)) {
        throw new IllegalArgumentException(
            "a borrowed read buffer cannot be written by reference: use writeTransient");
      }
    }
  }
}
