package dev.sluice.memory;

import java.nio.ByteBuffer;

/**
 * A zero-copy view of one read, lent to a callback and valid only until it returns.
 *
 * <p>Owners that consume bytes inside the callback (a forwarder writing them straight to a peer)
 * use {@link #buffer()}. Owners that keep bytes call {@link #take()} (the copy-out rule: exact-size
 * copy up to the threshold, whole-slab hand-off above it) or {@link #copy()} (always an exact-size
 * copy). One view object per loop is reused for every read: keeping it is a bug this class detects,
 * from another thread at any time, and on the loop thread whenever no read callback is running.
 */
public final class BorrowedBytes {
  private final ReadSlab owner;
  private ByteBuffer buffer;
  private int length;
  private boolean valid;
  private Thread lentTo;

  BorrowedBytes(ReadSlab owner) {
    this.owner = owner;
  }

  void open(ByteBuffer buffer, int length) {
    this.buffer = buffer;
    this.length = length;
    this.valid = true;
    this.lentTo = Thread.currentThread();
  }

  void close() {
    valid = false;
    buffer = null;
  }

  /** Number of bytes read. */
  public int length() {
    checkValid();
    return length;
  }

  /**
   * The bytes in the loop's slab: position 0 at first, limit {@link #length()}. The caller may move
   * the position (for example by writing the buffer to a channel); it must not keep the buffer
   * after the callback.
   */
  public ByteBuffer buffer() {
    checkValid();
    return buffer;
  }

  /**
   * Takes ownership of the whole read under the copy-out rule and ends this view. Ignores any
   * position the caller set on {@link #buffer()}.
   */
  public Chunk take() {
    checkValid();
    Chunk chunk = owner.take(length);
    close();
    return chunk;
  }

  /** An exact-size heap copy of the whole read; the view stays valid. */
  public HeapChunk copy() {
    checkValid();
    return owner.copyOut(length);
  }

  /** An exact-size heap copy of what is left between the buffer's position and limit. */
  public HeapChunk copyRemaining() {
    checkValid();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(buffer.position(), bytes);
    return new HeapChunk(bytes);
  }

  private void checkValid() {
    // The thread matters: while another read on the loop is lent, this same object is valid again.
    if (!valid || Thread.currentThread() != lentTo) {
      throw new IllegalStateException(
          "borrowed bytes used after their read callback returned (or after take(), or from"
              + " another thread): copy or take them inside the callback");
    }
  }
}
