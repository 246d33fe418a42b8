package dev.sluice.internal;

import dev.sluice.net.EventLoop;
import dev.sluice.net.WriteListener;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * One connection's write queue, its single owner: the callers' buffers in order (by reference, or
 * exact-size copies of bytes lent only for a call), the bytes not yet taken from them, the
 * watermarks and the writability they imply, and the completions. Plain connections take bytes by
 * writing them to the socket; TLS connections by encrypting them, and complete a write only once
 * the ciphertext of its last byte reached the socket.
 *
 * <p>Every byte queued has a stream offset; an entry completes once its bytes are all taken and the
 * owner has completed through its end offset. Completions and writability changes are never
 * delivered inside the call that causes them: they go through {@link EventLoop#completeLater} and
 * run after the current callback returns, so a handler that writes from a completion loops instead
 * of recursing. Loop thread only.
 */
public final class WriteQueue implements WriteListener {

  /** Hears the writability changes, after the call that caused them returned. */
  @FunctionalInterface
  public interface WritabilitySink {
    void writabilityChanged(boolean writable);
  }

  /** The buffer of an entry whose bytes were all taken from a buffer it no longer holds. */
  private static final ByteBuffer NOTHING_LEFT = ByteBuffer.allocate(0);

  private final EventLoop loop;
  private final MemoryCounters counters;
  private final long lowWatermark;
  private final long highWatermark;
  private final WritabilitySink sink;

  private Entry head;
  private Entry tail;
  private long queuedBytes;
  private long enqueuedOffset;
  private long takenOffset;
  private volatile boolean writable = true;
  private boolean sinkWritable = true;
  private boolean writabilityEventQueued;

  /** A write in the queue. */
  public static final class Entry {
    private ByteBuffer buffer;
    private final WriteListener listener;
    private boolean copied;
    private long endOffset;
    private Entry next;

    private Entry(ByteBuffer buffer, WriteListener listener) {
      this.buffer = buffer;
      this.listener = listener;
    }
  }

  public WriteQueue(
      EventLoop loop,
      MemoryCounters counters,
      long lowWatermark,
      long highWatermark,
      WritabilitySink sink) {
    this.loop = loop;
    this.counters = counters;
    this.lowWatermark = lowWatermark;
    this.highWatermark = highWatermark;
    this.sink = sink;
  }

  /** Whether nothing waits to be taken or completed. */
  public boolean isEmpty() {
    return head == null;
  }

  /** Bytes queued and not yet taken. */
  public long queuedBytes() {
    return queuedBytes;
  }

  /** The stream offset just past the last byte taken. */
  public long takenOffset() {
    return takenOffset;
  }

  /** The buffer at the head of the queue (the next bytes to take), or null when empty. */
  public ByteBuffer headBuffer() {
    return head == null ? null : head.buffer;
  }

  /** Queues {@code buffer} by reference; the caller must not touch it until it completes. */
  public Entry add(ByteBuffer buffer, WriteListener listener) {
    Entry entry = new Entry(buffer, listener);
    link(entry, buffer.remaining());
    return entry;
  }

  /** Queues an exact-size copy of what is left of {@code source}, which is valid only now. */
  public Entry addCopy(ByteBuffer source, WriteListener listener) {
    Entry entry = new Entry(copyOf(source), listener);
    entry.copied = true;
    link(entry, entry.buffer.remaining());
    return entry;
  }

  /**
   * Ends the loan of {@code entry}'s buffer, which was lent for the duration of a call only: what
   * is left to take is replaced by an exact-size copy, and an entry with nothing left lets go of
   * the buffer all the same. A read's lender reuses the one buffer object for the next read, of any
   * connection, so the entry would otherwise show that read's bytes as its own.
   */
  public void copyRest(Entry entry) {
    if (entry.copied) {
      return;
    }
    if (entry.buffer.hasRemaining()) {
      entry.buffer = copyOf(entry.buffer);
      entry.copied = true;
    } else {
      entry.buffer = NOTHING_LEFT;
    }
  }

  private ByteBuffer copyOf(ByteBuffer source) {
    byte[] rest = new byte[source.remaining()];
    source.get(rest);
    counters.addPendingCopyBytes(rest.length);
    return ByteBuffer.wrap(rest);
  }

  private void link(Entry entry, int bytes) {
    enqueuedOffset += bytes;
    entry.endOffset = enqueuedOffset;
    if (tail == null) {
      head = entry;
    } else {
      tail.next = entry;
    }
    tail = entry;
    addQueued(bytes);
  }

  /**
   * Puts the buffers that still hold bytes to take into {@code into}, in order, stopping at the
   * first heap buffer when {@code directOnly}; returns how many.
   */
  public int gather(ByteBuffer[] into, boolean directOnly) {
    int count = 0;
    for (Entry e = head; e != null && count < into.length; e = e.next) {
      if (e.buffer.hasRemaining()) {
        if (directOnly && !e.buffer.isDirect()) {
          break;
        }
        into[count++] = e.buffer;
      }
    }
    return count;
  }

  /** Records that {@code bytes} were taken from the head buffers (their positions moved). */
  public void taken(long bytes) {
    takenOffset += bytes;
    addQueued(-bytes);
  }

  /**
   * Completes, after the current callback, every write whose bytes all lie before {@code offset}
   * (at most {@link #takenOffset()}). The offsets decide, not the buffers: a completed write's
   * buffer may already be its caller's again.
   */
  public void completeThrough(long offset) {
    while (head != null && head.endOffset <= offset) {
      loop.completeLater(pop().listener, null);
    }
  }

  /**
   * Fails every queued write with the error {@code error} makes, after the current callback. The
   * error is made only when a write is queued: most connections close with an empty queue, and an
   * exception's stack trace is the dearest part of a close.
   */
  public void failAll(Supplier<? extends Throwable> error) {
    addQueued(-queuedBytes);
    Throwable failure = head == null ? null : error.get();
    while (head != null) {
      loop.completeLater(pop().listener, failure);
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

  private void addQueued(long delta) {
    queuedBytes += delta;
    counters.addPendingWriteBytes(delta);
  }

  /** False while pending bytes are above the high watermark, until they fall to the low one. */
  public boolean isWritable() {
    return writable;
  }

  /**
   * Updates writability from {@code pending} (this queue's bytes, plus whatever the owner holds
   * elsewhere, such as ciphertext in its transport); a change reaches the sink after the current
   * callback, and only if it still holds then.
   */
  public void updateWritability(long pending) {
    if (writable && pending > highWatermark) {
      writable = false;
    } else if (!writable && pending <= lowWatermark) {
      writable = true;
    } else {
      return;
    }
    if (!writabilityEventQueued) {
      writabilityEventQueued = true;
      loop.completeLater(this, null); // delivered by onWriteComplete
    }
  }

  /**
   * The queued writability event (the queue is its own listener: no object per connection for it);
   * {@code error} is always null.
   */
  @Override
  public void onWriteComplete(Throwable error) {
    writabilityEventQueued = false;
    boolean now = writable;
    if (now != sinkWritable) {
      sinkWritable = now;
      sink.writabilityChanged(now);
    }
  }
}
