package dev.sluice.net;

import java.nio.ByteBuffer;

/**
 * The bytes a first stage holds until its decision, in one array: exact size after the first read
 * it keeps, then doubling as more arrive (up to the most the stage may hold, or the read that
 * crossed it), so that bytes trickled in are copied a bounded number of times in all rather than
 * all of them again on every read. Its capacity is charged to a {@link ByteAccount} until released.
 * Loop thread only.
 */
final class HeldPrefix {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  private final int maxBytes;
  private final ByteAccount account;
  private byte[] bytes;
  private int length;
  private long copiedBytes;

  HeldPrefix(int maxBytes, ByteAccount account) {
    this.maxBytes = maxBytes;
    this.account = account;
  }

  boolean isEmpty() {
    return length == 0;
  }

  /** Appends the bytes between {@code src}'s position and limit (neither is moved). */
  void append(ByteBuffer src) {
    int n = src.remaining();
    int needed = Math.addExact(length, n);
    if (bytes == null || needed > bytes.length) {
      grow(needed);
    }
    src.get(src.position(), bytes, length, n);
    length = needed;
    copiedBytes += n;
  }

  private void grow(int needed) {
    int held = bytes == null ? 0 : bytes.length;
    int capacity = held == 0 ? needed : Math.max(needed, (int) Math.min(maxBytes, 2L * held));
    byte[] bigger = new byte[capacity];
    if (length > 0) {
      System.arraycopy(bytes, 0, bigger, 0, length);
      copiedBytes += length;
    }
    account.charge(capacity - held);
    bytes = bigger;
  }

  /** Every byte held, from position 0: a view, valid until the next append or release. */
  ByteBuffer view() {
    return bytes == null ? EMPTY : ByteBuffer.wrap(bytes, 0, length);
  }

  /** Forgets the bytes and releases their charge; nothing more the second time. */
  void release() {
    if (bytes != null) {
      account.release(bytes.length);
      bytes = null;
      length = 0;
    }
  }

  /** Bytes copied into the array so far, growing included (linear in the bytes appended). */
  long copiedBytes() {
    return copiedBytes;
  }
}
