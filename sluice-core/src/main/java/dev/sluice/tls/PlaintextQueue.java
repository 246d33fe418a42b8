package dev.sluice.tls;

import dev.sluice.memory.MemoryCounters;
import dev.sluice.net.WriteListener;
import java.nio.ByteBuffer;

/**
 * The application's writes on one TLS connection, in order: each buffer held by reference until it
 * has been encrypted and its ciphertext handed to the socket, then completed. Loop thread only.
 */
final class PlaintextQueue {

  private final MemoryCounters counters;
  private Entry head;
  private Entry tail;
  private long unencryptedBytes;

  PlaintextQueue(MemoryCounters counters) {
    this.counters = counters;
  }

  /** A write in the queue. */
  static final class Entry {
    private ByteBuffer buffer;
    private final WriteListener listener;
    private boolean copied;
    private Entry next;

    private Entry(ByteBuffer buffer, WriteListener listener) {
      this.buffer = buffer;
      this.listener = listener;
    }
  }

  boolean isEmpty() {
    return head == null;
  }

  /** Bytes accepted and not yet encrypted. */
  long unencryptedBytes() {
    return unencryptedBytes;
  }

  /** Queues {@code buffer} by reference. */
  Entry add(ByteBuffer buffer, WriteListener listener) {
    Entry entry = new Entry(buffer, listener);
    if (tail == null) {
      head = entry;
    } else {
      tail.next = entry;
    }
    tail = entry;
    addUnencrypted(buffer.remaining());
    return entry;
  }

  /**
   * Replaces what {@code entry} has left to encrypt with an exact-size copy: its buffer was lent
   * for the duration of a call only.
   */
  void copyRest(Entry entry) {
    if (!entry.buffer.hasRemaining() || entry.copied) {
      return;
    }
    byte[] rest = new byte[entry.buffer.remaining()];
    entry.buffer.get(rest);
    entry.buffer = ByteBuffer.wrap(rest);
    entry.copied = true;
    counters.addPendingCopyBytes(rest.length);
  }

  /** Puts the buffers that still hold unencrypted bytes into {@code into}; returns how many. */
  int gather(ByteBuffer[] into) {
    int count = 0;
    for (Entry e = head; e != null && count < into.length; e = e.next) {
      if (e.buffer.hasRemaining()) {
        into[count++] = e.buffer;
      }
    }
    return count;
  }

  /** Records that {@code bytes} were taken from the gathered buffers by encryption. */
  void encrypted(long bytes) {
    addUnencrypted(-bytes);
  }

  /**
   * Completes the writes at the head whose bytes are all encrypted. Call it only when all the
   * ciphertext made so far has reached the socket.
   */
  void completeEncrypted() {
    while (head != null && !head.buffer.hasRemaining()) {
      Entry done = pop();
      WriteListener.notify(done.listener, null);
    }
  }

  /** Fails every queued write. */
  void failAll(Throwable error) {
    addUnencrypted(-unencryptedBytes);
    while (head != null) {
      Entry failed = pop();
      WriteListener.notify(failed.listener, error);
    }
  }

  private Entry pop() {
    Entry e = head;
    head = e.next;
    if (head == null) {
      tail = null;
    }
    if (e.copied) {
      counters.addPendingCopyBytes(-e.buffer.capacity());
    }
    return e;
  }

  private void addUnencrypted(long delta) {
    unencryptedBytes += delta;
    counters.addPendingWriteBytes(delta);
  }
}
