package dev.sluice.testing;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionClosedException;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A connection without a socket, for testing protocol logic fast (parsers, detectors, a proxy's
 * state machines): bytes the test feeds reach the handler as borrowed reads, exactly as from a
 * socket; bytes the handler writes are collected for the test to read. It lives on a real event
 * loop (its own, of one thread), so handlers may schedule timers; every call from the test runs on
 * that loop and waits for it, and completions are delivered after the call, as on a socket.
 *
 * <p>By default every write is taken at once. {@link #acceptAtMost} makes the "socket" take only so
 * many more bytes, so writes queue, writability turns false above the loop's high watermark, and
 * {@link #drain} lets them through: backpressure without a socket.
 */
public final class EmbeddedConnection implements Connection, AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong(1_000_000);

  private final long id = IDS.incrementAndGet();
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final SocketAddress remote;
  private final SocketAddress local;
  private final ByteArrayOutputStream written = new ByteArrayOutputStream();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private ConnectionHandler handler;
  private long accepting = Long.MAX_VALUE;
  private long pendingBytes;
  private volatile boolean writable = true;
  private boolean readingPaused;
  private boolean outputShutdown;
  private boolean outputShutdownRequested;
  private int maxReadBytes = Integer.MAX_VALUE;
  private long lastActivity;
  private volatile CloseReason closeReason;
  private volatile Object attachment;

  private record Pending(ByteBuffer buffer, WriteListener listener) {}

  private EmbeddedConnection(ConnectionHandler handler, SocketAddress remote) {
    this.group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    this.loop = group.loops().getFirst();
    this.handler = handler;
    this.remote = remote;
    this.local = new InetSocketAddress("127.0.0.1", 7000);
  }

  /** A connection from 192.0.2.10:40000 (a documentation address), active in {@code handler}. */
  public static EmbeddedConnection open(ConnectionHandler handler) {
    return open(handler, new InetSocketAddress("192.0.2.10", 40000));
  }

  /** A connection from {@code remote}, active in {@code handler}. */
  public static EmbeddedConnection open(ConnectionHandler handler, SocketAddress remote) {
    EmbeddedConnection c = new EmbeddedConnection(handler, remote);
    c.onLoop(
        () -> {
          c.lastActivity = c.loop.nanoTime();
          c.callHandler(() -> c.handler.onActive(c));
        });
    return c;
  }

  // ---- the test's side ----

  /**
   * Delivers {@code bytes} to the handler as reads of at most {@link #setMaxReadBytes} bytes each,
   * unless the handler paused reading (then nothing is read; feed again after it resumes).
   */
  public void feed(byte[] bytes) {
    onLoop(
        () -> {
          int offset = 0;
          while (offset < bytes.length && isOpen()) {
            if (readingPaused) {
              throw new IllegalStateException(
                  "the handler paused reading with " + (bytes.length - offset) + " B unread");
            }
            int n = Math.min(maxReadBytes, bytes.length - offset);
            ByteBuffer read = ByteBuffer.wrap(bytes, offset, n).slice();
            offset += n;
            lastActivity = loop.nanoTime();
            callHandler(
                () ->
                    BorrowedBytes.lend(
                        read, lent -> handler.onRead(EmbeddedConnection.this, lent)));
          }
        });
  }

  /** The peer shut down its output. */
  public void feedEndOfInput() {
    onLoop(() -> callHandler(() -> handler.onEndOfInput(this)));
  }

  /** Every byte the handler wrote that the "socket" took, and forgets them. */
  public byte[] takeWritten() {
    return query(
        () -> {
          byte[] bytes = written.toByteArray();
          written.reset();
          return bytes;
        });
  }

  /** From now on the "socket" takes at most {@code bytes} more; the rest waits. */
  public void acceptAtMost(long bytes) {
    onLoop(
        () -> {
          accepting = bytes;
        });
  }

  /** Lets {@code bytes} more through (Long.MAX_VALUE: everything from now on). */
  public void drain(long bytes) {
    onLoop(
        () -> {
          accepting = bytes == Long.MAX_VALUE ? Long.MAX_VALUE : accepting + bytes;
          flush();
        });
  }

  /** Whether the handler paused reading. */
  public boolean readingPaused() {
    return query(() -> readingPaused);
  }

  /** Whether this side's output was shut down (every write before it taken). */
  public boolean outputShutdown() {
    return query(() -> outputShutdown);
  }

  /** Runs {@code action} on the connection's loop and waits for it, and for its completions. */
  public void run(Runnable action) {
    onLoop(action);
  }

  /** Stops the loop; the connection closes with reason shutdown if it is still open. */
  @Override
  public void close() {
    if (isOpen()) {
      onLoop(() -> closeNow(CloseReason.SHUTDOWN));
    }
    group.close();
  }

  // ---- Connection ----

  @Override
  public long id() {
    return id;
  }

  @Override
  public EventLoop loop() {
    return loop;
  }

  @Override
  public SocketAddress remoteAddress() {
    return remote;
  }

  @Override
  public SocketAddress localAddress() {
    return local;
  }

  @Override
  public boolean isOpen() {
    return closeReason == null;
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public long pendingWriteBytes() {
    return pendingBytes;
  }

  @Override
  public long lastActivityNanos() {
    return lastActivity;
  }

  @Override
  public long lastWriteNanos() {
    return lastActivity;
  }

  @Override
  public CloseReason closeReason() {
    return closeReason;
  }

  @Override
  public Object attachment() {
    return attachment;
  }

  @Override
  public void attach(Object value) {
    attachment = value;
  }

  @Override
  public void pauseReading() {
    loop.runOnLoop(() -> readingPaused = true);
  }

  @Override
  public void resumeReading() {
    loop.runOnLoop(() -> readingPaused = false);
  }

  @Override
  public void setMaxReadBytes(int bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("maxReadBytes must be at least 1, not " + bytes);
    }
    loop.runOnLoop(() -> maxReadBytes = bytes);
  }

  @Override
  public void switchHandler(ConnectionHandler next) {
    handler = next;
    if (isOpen()) {
      callHandler(() -> next.onActive(this));
    }
  }

  @Override
  public void write(ByteBuffer buffer, WriteListener listener) {
    loop.runOnLoop(() -> enqueue(buffer, listener, false));
  }

  @Override
  public void writeTransient(ByteBuffer source, WriteListener listener) {
    if (!loop.inLoop()) {
      throw new IllegalStateException("writeTransient must be called on " + loop);
    }
    enqueue(source, listener, true);
  }

  @Override
  public void shutdownOutput() {
    loop.runOnLoop(
        () -> {
          outputShutdownRequested = true;
          if (pending.isEmpty()) {
            outputShutdown = true;
          }
        });
  }

  @Override
  public void close(CloseReason reason) {
    loop.runOnLoop(() -> closeNow(reason));
  }

  @Override
  public void reset() {
    loop.runOnLoop(() -> closeNow(CloseReason.LOCAL_RESET));
  }

  // ---- plumbing ----

  private void enqueue(ByteBuffer buffer, WriteListener listener, boolean transientSource) {
    if (!isOpen()) {
      loop.completeLater(listener, closedException());
      return;
    }
    if (outputShutdownRequested) {
      loop.completeLater(listener, new ConnectionClosedException("output already shut down", null));
      return;
    }
    if (pending.isEmpty()) {
      take(buffer);
      if (!buffer.hasRemaining()) {
        loop.completeLater(listener, null);
        return;
      }
    }
    ByteBuffer queued = buffer;
    if (transientSource) {
      queued = ByteBuffer.allocate(buffer.remaining());
      queued.put(buffer).flip();
    }
    pending.add(new Pending(queued, listener));
    pendingBytes += queued.remaining();
    updateWritability();
  }

  private void take(ByteBuffer buffer) {
    int n = (int) Math.min(buffer.remaining(), accepting);
    if (n > 0) {
      byte[] bytes = new byte[n];
      buffer.get(bytes);
      written.writeBytes(bytes);
      if (accepting != Long.MAX_VALUE) {
        accepting -= n;
      }
      lastActivity = loop.nanoTime();
    }
  }

  private void flush() {
    while (!pending.isEmpty() && isOpen()) {
      Pending head = pending.peek();
      int before = head.buffer().remaining();
      take(head.buffer());
      pendingBytes -= before - head.buffer().remaining();
      if (head.buffer().hasRemaining()) {
        break;
      }
      pending.poll();
      loop.completeLater(head.listener(), null);
    }
    updateWritability();
    if (pending.isEmpty() && outputShutdownRequested) {
      outputShutdown = true;
    }
  }

  private void updateWritability() {
    TransportConfig config = loop.config();
    boolean now = writable;
    if (writable && pendingBytes > config.writeHighWatermark()) {
      now = false;
    } else if (!writable && pendingBytes <= config.writeLowWatermark()) {
      now = true;
    }
    if (now != writable) {
      writable = now;
      boolean delivered = now;
      loop.completeLater(
          error -> {
            if (isOpen() && writable == delivered) {
              callHandler(() -> handler.onWritabilityChanged(this, delivered));
            }
          },
          null);
    }
  }

  private void closeNow(CloseReason reason) {
    if (closeReason != null) {
      return;
    }
    closeReason = reason;
    ConnectionClosedException error = closedException();
    for (Pending p : pending) {
      loop.completeLater(p.listener(), error);
    }
    pending.clear();
    pendingBytes = 0;
    try {
      handler.onClose(this, reason);
    } catch (RuntimeException e) {
      System.getLogger("dev.sluice.testing")
          .log(System.Logger.Level.WARNING, "onClose failed for " + this, e);
    }
  }

  private void callHandler(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException | Error e) {
      closeNow(new CloseReason.Error(e));
    }
  }

  private ConnectionClosedException closedException() {
    return ConnectionClosedException.closed("embedded connection " + id, remote, closeReason);
  }

  private void onLoop(Runnable action) {
    query(
        () -> {
          action.run();
          return null;
        });
  }

  private <T> T query(Supplier<T> action) {
    CompletableFuture<T> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          try {
            done.complete(action.get());
          } catch (Throwable t) {
            done.completeExceptionally(t);
          }
        });
    // Completions run after the task; a second task waits for them.
    CompletableFuture<Void> settled = new CompletableFuture<>();
    loop.execute(() -> settled.complete(null));
    Await.result(settled, "the embedded connection's loop");
    if (done.isCompletedExceptionally()) {
      try {
        done.join();
      } catch (java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw e;
      }
    }
    return done.join();
  }

  @Override
  public String toString() {
    return "EmbeddedConnection[" + id + " " + remote + "]";
  }
}
