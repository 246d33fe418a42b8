package dev.sluice.internal;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import java.nio.ByteBuffer;

/**
 * The one {@link BorrowedBytes} view a read slab lends for every read, or a detached one over bytes
 * a handler holds itself. It refuses use from any thread but the one it is lent to, and after its
 * callback returned.
 */
public final class LentBytes implements BorrowedBytes {
  private final ReadSlab owner;
  private ByteBuffer buffer;
  private int start;
  private int length;
  private boolean valid;
  private Thread lentTo;

  LentBytes(ReadSlab owner) {
    this.owner = owner;
  }

  /** A view over bytes that no slab owns: {@link #take()} copies them. */
  public static LentBytes detached() {
    return new LentBytes(null);
  }

  /** Lends the bytes between {@code buffer}'s position and limit. */
  public void open(ByteBuffer buffer) {
    this.buffer = buffer;
    this.start = buffer.position();
    this.length = buffer.remaining();
    this.valid = true;
    this.lentTo = Thread.currentThread();
  }

  /** Ends the loan. */
  public void close() {
    valid = false;
    buffer = null;
  }

  @Override
  public int length() {
    checkValid();
    return length;
  }

  @Override
  public ByteBuffer buffer() {
    checkValid();
    return buffer;
  }

  @Override
  public Chunk take() {
    checkValid();
    Chunk chunk = owner != null ? owner.take(length) : new HeapChunk(copyOf(start, length));
    close();
    return chunk;
  }

  @Override
  public HeapChunk copy() {
    checkValid();
    return owner != null ? owner.copyOut(length) : new HeapChunk(copyOf(start, length));
  }

  @Override
  public HeapChunk copyRemaining() {
    checkValid();
    return new HeapChunk(copyOf(buffer.position(), buffer.remaining()));
  }

  private byte[] copyOf(int from, int count) {
    byte[] bytes = new byte[count];
    buffer.get(from, bytes);
    return bytes;
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
