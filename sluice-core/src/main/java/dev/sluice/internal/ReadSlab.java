package dev.sluice.internal;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The one slab an event loop reads into, and the exact-size rule for what leaves it.
 *
 * <p>Each read lands at offset 0 of the loop's current slab. Application code sees it through
 * {@link BorrowedBytes}: a read it keeps is copied out at exact size when it is no larger than the
 * copy threshold (the slab is reused for the next read at once), or hands over the whole slab when
 * larger (the loop then takes a fresh slab from the pool). A connection never owns a read buffer.
 */
public final class ReadSlab {
  private final SlabPool pool;
  private final int copyThreshold;
  private final LentBytes view = new LentBytes(this);
  private Slab current;

  /**
   * @param pool the loop's slab pool
   * @param copyThreshold reads of at most this many bytes are copied out (inclusive)
   */
  public ReadSlab(SlabPool pool, int copyThreshold) {
    if (copyThreshold < 0 || copyThreshold > pool.slabSize()) {
      throw new IllegalArgumentException(
          "copy threshold " + copyThreshold + " must be within 0.." + pool.slabSize());
    }
    this.pool = pool;
    this.copyThreshold = copyThreshold;
  }

  /** The inclusive copy threshold in bytes. */
  public int copyThreshold() {
    return copyThreshold;
  }

  /** The slab's buffer, cleared, ready for a channel read of up to one slab. */
  public ByteBuffer prepareRead() {
    if (current == null) {
      current = pool.acquire();
    }
    return current.buffer().clear();
  }

  /**
   * Whether {@code buffer} is this slab's buffer or a view of its memory (a slice, a duplicate):
   * the next read overwrites it, so it must never be queued for writing.
   */
  public boolean lends(ByteBuffer buffer) {
    if (current == null) {
      return false;
    }
    if (buffer == current.buffer()) {
      return true;
    }
    if (!buffer.isDirect()) {
      return false; // a heap buffer cannot view native memory
    }
    MemorySegment slab = current.segment();
    MemorySegment view = MemorySegment.ofBuffer(buffer);
    long start = view.address();
    return start < slab.address() + slab.byteSize()
        && start + Math.max(1, view.byteSize()) > slab.address();
  }

  /**
   * A view of the first {@code length} bytes of the slab, valid until {@link #endBorrow()}.
   * Position 0, limit {@code length}.
   */
  public BorrowedBytes borrow(int length) {
    ByteBuffer buffer = current.buffer();
    buffer.limit(length).position(0);
    view.open(buffer);
    return view;
  }

  /** Ends the callback that received the view; the view is unusable from now on. */
  public void endBorrow() {
    view.close();
  }

  /** Gives the current slab back to the pool, e.g. when the loop stops. */
  public void close() {
    if (current != null) {
      pool.recycle(current);
      current = null;
    }
  }

  Chunk take(int length) {
    if (length <= copyThreshold) {
      return copyOut(length);
    }
    Slab handedOff = current;
    current = null;
    return pool.handOff(handedOff, length);
  }

  /**
   * An exact-size copy of the first {@code length} bytes, whatever the view's position or limit.
   */
  HeapChunk copyOut(int length) {
    byte[] bytes = new byte[length];
    MemorySegment.copy(current.segment(), ValueLayout.JAVA_BYTE, 0, bytes, 0, length);
    return new HeapChunk(bytes);
  }
}
