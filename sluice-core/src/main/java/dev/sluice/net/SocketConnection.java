package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.MemoryCounters;
import dev.sluice.memory.ReadSlab;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TCP or Unix-domain connection, living on one {@link EventLoop}.
 *
 * <p>The hot path is {@link #onReadable()} (socket -> loop slab -> handler) and {@link
 * #write(ByteBuffer, WriteListener)} (try the socket at once, queue the caller's buffer by
 * reference for the rest). A connection with nothing pending holds no buffer: no read buffer (the
 * loop's slab is used), no write buffer (the queue holds callers' buffers), no copy buffer.
 *
 * <p>Methods may be called from any thread; calls from other threads are queued to the loop.
 */
public final class SocketConnection implements Connection {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");
  private static final AtomicLong IDS = new AtomicLong();

  private final long id = IDS.incrementAndGet();
  private final EventLoop loop;
  private final SocketChannel channel;
  private final SocketOptions options;
  private final ConnectionHandler handler;
  private final SocketAddress remoteAddress;
  private final MemoryCounters counters;
  private final ConnectionTimer timer;
  private SelectionKey key;
  private int interestOps = -1;
  private CompletableFuture<Connection> connectFuture;

  // Write queue: callers' buffers, by reference, in order.
  private PendingWrite head;
  private PendingWrite tail;
  private long pendingBytes;
  private volatile boolean writable = true;

  private boolean active;
  private volatile boolean closed;
  private boolean inputShutdown;
  private boolean outputShutdownRequested;
  private boolean outputShutdown;
  private boolean readingPaused;
  private CloseReason closeReason;
  private long lastActivityNanos;
  private volatile Object attachment;

  private SocketConnection(
      EventLoop loop,
      SocketChannel channel,
      SocketAddress remoteAddress,
      SocketOptions options,
      ConnectionHandler handler) {
    this.loop = loop;
    this.channel = channel;
    this.remoteAddress = remoteAddress;
    this.options = options;
    this.handler = handler;
    this.counters = loop.counters();
    this.timer = new ConnectionTimer();
  }

  // ---- creation ----

  /** Adopts an accepted channel on the calling loop thread. */
  static void accepted(
      EventLoop loop, SocketChannel channel, SocketOptions options, ConnectionHandler handler) {
    SocketConnection c = null;
    try {
      channel.configureBlocking(false);
      applyOptions(channel, options);
      c = new SocketConnection(loop, channel, channel.getRemoteAddress(), options, handler);
      c.key = loop.register(channel, 0, c.selectable());
      c.activate();
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "could not set up accepted connection", e);
      if (c != null && c.active) {
        c.closeNow(new CloseReason.Error(e));
      } else {
        closeQuietly(channel);
      }
    }
  }

  static void connect(
      EventLoop loop,
      SocketAddress address,
      SocketOptions options,
      ConnectionHandler handler,
      CompletableFuture<Connection> future) {
    SocketChannel channel;
    try {
      channel = EventLoop.openChannel(address);
    } catch (IOException e) {
      future.completeExceptionally(connectFailure(address, e));
      return;
    }
    SocketConnection c = new SocketConnection(loop, channel, address, options, handler);
    c.connectFuture = future;
    try {
      channel.configureBlocking(false);
      applyOptions(channel, options);
      if (channel.connect(address)) {
        c.key = loop.register(channel, 0, c.selectable());
        c.activate();
      } else {
        c.key = loop.register(channel, SelectionKey.OP_CONNECT, c.selectable());
        c.interestOps = SelectionKey.OP_CONNECT;
        loop.timers().schedule(c.timer, options.connectTimeout().toNanos(), loop.now());
      }
    } catch (IOException | RuntimeException e) {
      c.failConnect(connectFailure(address, e));
    }
  }

  private static ConnectException connectFailure(SocketAddress address, Throwable cause) {
    String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    ConnectException e = new ConnectException("connect to " + address + " failed: " + why);
    e.initCause(cause);
    return e;
  }

  private static void applyOptions(SocketChannel channel, SocketOptions options)
      throws IOException {
    if (channel.getLocalAddress() instanceof UnixDomainSocketAddress
        || channel.getRemoteAddress() instanceof UnixDomainSocketAddress
        || !channel.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
      applyBufferSizes(channel, options);
      return;
    }
    channel.setOption(StandardSocketOptions.TCP_NODELAY, options.tcpNoDelay());
    channel.setOption(StandardSocketOptions.SO_KEEPALIVE, options.keepAlive());
    channel.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
    applyBufferSizes(channel, options);
  }

  private static void applyBufferSizes(SocketChannel channel, SocketOptions options)
      throws IOException {
    if (options.sendBufferSize() > 0) {
      channel.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferSize());
    }
    if (options.receiveBufferSize() > 0) {
      channel.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
    }
  }

  private void activate() {
    active = true;
    lastActivityNanos = loop.now();
    loop.timers().cancel(timer);
    scheduleIdleTimer(options.idleTimeout().toNanos());
    updateInterest();
    try {
      handler.onActive(this);
    } catch (Throwable t) {
      closeNow(new CloseReason.Error(t));
    }
    if (connectFuture != null) {
      CompletableFuture<Connection> f = connectFuture;
      connectFuture = null;
      if (closed) {
        f.completeExceptionally(closedException());
      } else {
        f.complete(this);
      }
    }
  }

  // ---- accessors ----

  /** A process-unique id, for logs. */
  @Override
  public long id() {
    return id;
  }

  /** The loop this connection lives on. */
  @Override
  public EventLoop loop() {
    return loop;
  }

  /** The peer's address. */
  @Override
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  /** This side's address, or null once closed. */
  @Override
  public SocketAddress localAddress() {
    try {
      return channel.getLocalAddress();
    } catch (IOException e) {
      return null;
    }
  }

  /** Whether the connection is still open. */
  @Override
  public boolean isOpen() {
    return !closed;
  }

  /** False while pending writes are above the high watermark (until they drain to the low). */
  @Override
  public boolean isWritable() {
    return writable;
  }

  /** Bytes queued and not yet written. Loop thread only. */
  @Override
  public long pendingWriteBytes() {
    return pendingBytes;
  }

  /** Why the connection closed, or null while open. */
  @Override
  public CloseReason closeReason() {
    return closeReason;
  }

  /** Application state attached to this connection. */
  @Override
  public Object attachment() {
    return attachment;
  }

  /** Attaches application state to this connection. */
  @Override
  public void attach(Object value) {
    this.attachment = value;
  }

  // ---- reading ----

  /** Stops reading (backpressure towards the peer) until {@link #resumeReading()}. */
  @Override
  public void pauseReading() {
    loop.runOnLoop(
        () -> {
          readingPaused = true;
          updateInterest();
        });
  }

  /** Resumes reading after {@link #pauseReading()}. */
  @Override
  public void resumeReading() {
    loop.runOnLoop(
        () -> {
          readingPaused = false;
          updateInterest();
        });
  }

  private void onReadable() {
    ReadSlab slab = loop.readSlab();
    int maxReads = loop.config().maxReadsPerEvent();
    for (int i = 0; i < maxReads && wantsRead(); i++) {
      ByteBuffer target = slab.prepareRead();
      int capacity = target.remaining();
      int n;
      try {
        n = channel.read(target);
      } catch (IOException e) {
        closeOnIoError(e);
        return;
      }
      if (n < 0) {
        onEndOfInput();
        return;
      }
      if (n == 0) {
        return;
      }
      lastActivityNanos = loop.now();
      BorrowedBytes bytes = slab.borrow(n);
      try {
        handler.onReadBorrowed(this, bytes);
      } catch (Throwable t) {
        slab.endBorrow();
        closeNow(new CloseReason.Error(t));
        return;
      }
      slab.endBorrow();
      if (n < capacity) {
        return; // the socket is drained: skip a read that would return 0
      }
    }
  }

  private boolean wantsRead() {
    return active && !closed && !inputShutdown && !readingPaused;
  }

  private void onEndOfInput() {
    inputShutdown = true;
    updateInterest();
    try {
      handler.onEndOfInput(this);
    } catch (Throwable t) {
      closeNow(new CloseReason.Error(t));
      return;
    }
    closeIfBothDirectionsDone();
  }

  // ---- writing ----

  /**
   * Writes {@code buffer}, queued by reference until {@code listener} hears it completed; the
   * caller must not modify it until then. Heap buffers go to the socket in bounded slices through
   * the loop's staging buffer, never as one payload-sized temporary copy.
   *
   * @param listener told of completion or failure on the loop; may be null
   */
  @Override
  public void write(ByteBuffer buffer, WriteListener listener) {
    if (loop.inLoop()) {
      enqueueWrite(buffer, listener, false);
    } else {
      try {
        loop.execute(() -> enqueueWrite(buffer, listener, false));
      } catch (RejectedExecutionException e) {
        WriteListener.notify(listener, closedException());
      }
    }
  }

  /**
   * Writes bytes that are valid only during this call (e.g. a {@link BorrowedBytes} buffer from a
   * read callback): what the socket accepts now is written from {@code source}; only the remainder
   * is copied, at exact size, and queued. Loop thread only.
   *
   * @param listener told of completion or failure; may be null
   */
  @Override
  public void writeTransient(ByteBuffer source, WriteListener listener) {
    if (!loop.inLoop()) {
      throw new IllegalStateException(
          "writeTransient must be called on the connection's event loop (" + loop + ")");
    }
    enqueueWrite(source, listener, true);
  }

  private void enqueueWrite(ByteBuffer buffer, WriteListener listener, boolean transientSource) {
    if (closed) {
      WriteListener.notify(listener, closedException());
      return;
    }
    if (outputShutdownRequested) {
      WriteListener.notify(
          listener, new ConnectionClosedException("output already shut down", null));
      return;
    }
    if (head == null && active) {
      try {
        writeNow(buffer);
      } catch (IOException e) {
        closeOnIoError(e);
        WriteListener.notify(listener, closedException()); // like every other write the break fails
        return;
      } catch (RuntimeException e) {
        // Not the socket's doing (a buffer this thread may not touch, say): fail it loudly.
        WriteListener.notify(listener, e);
        closeNow(new CloseReason.Error(e));
        return;
      }
      if (!buffer.hasRemaining()) {
        WriteListener.notify(listener, null);
        return;
      }
    }
    ByteBuffer queued = buffer;
    boolean copied = false;
    if (transientSource) {
      byte[] rest = new byte[buffer.remaining()];
      buffer.get(rest);
      queued = ByteBuffer.wrap(rest);
      copied = true;
      counters.addPendingCopyBytes(rest.length);
    }
    PendingWrite w = new PendingWrite(queued, listener, copied);
    if (tail == null) {
      head = w;
    } else {
      tail.next = w;
    }
    tail = w;
    addPending(queued.remaining());
    updateInterest();
  }

  /** Writes as much of {@code buffer} as the socket takes now; returns bytes written. */
  private long writeNow(ByteBuffer buffer) throws IOException {
    long total = 0;
    int cap = loop.config().maxBytesPerSocketWrite();
    if (buffer.isDirect()) {
      while (buffer.hasRemaining()) {
        int limit = buffer.limit();
        int attempt = cap > 0 ? Math.min(cap, buffer.remaining()) : buffer.remaining();
        buffer.limit(buffer.position() + attempt);
        int n;
        try {
          n = channel.write(buffer);
        } finally {
          buffer.limit(limit);
        }
        total += n;
        if (n < attempt) {
          break;
        }
      }
    } else {
      // Never hand the JDK a heap buffer: it would copy all of it into a cached direct buffer.
      ByteBuffer staging = loop.staging();
      int slice = cap > 0 ? Math.min(cap, staging.capacity()) : staging.capacity();
      while (buffer.hasRemaining()) {
        int len = Math.min(slice, buffer.remaining());
        staging.clear();
        staging.put(0, buffer, buffer.position(), len).limit(len);
        int n = channel.write(staging);
        buffer.position(buffer.position() + n);
        total += n;
        if (n < len) {
          break;
        }
      }
    }
    if (total > 0) {
      lastActivityNanos = loop.now();
    }
    return total;
  }

  private void onWritable() {
    try {
      flush();
    } catch (IOException e) {
      closeOnIoError(e);
    } catch (RuntimeException e) {
      closeNow(new CloseReason.Error(e)); // pending writes fail with it as their cause
    }
  }

  private void flush() throws IOException {
    boolean gatherAllowed = loop.config().maxBytesPerSocketWrite() == 0;
    while (head != null && !closed) {
      boolean socketFull;
      long written;
      if (gatherAllowed && head.buffer.isDirect() && head.next != null) {
        ByteBuffer[] gather = loop.gatherArray();
        int count = 0;
        long attempted = 0;
        for (PendingWrite w = head;
            w != null && count < gather.length && w.buffer.isDirect();
            w = w.next) {
          gather[count++] = w.buffer;
          attempted += w.buffer.remaining();
        }
        try {
          written = channel.write(gather, 0, count);
        } finally {
          Arrays.fill(gather, 0, count, null);
        }
        if (written > 0) {
          lastActivityNanos = loop.now();
        }
        socketFull = written < attempted;
      } else {
        written = writeNow(head.buffer);
        socketFull = head.buffer.hasRemaining();
      }
      addPending(-written);
      completeWrittenEntries();
      if (socketFull) {
        break;
      }
    }
    if (closed) {
      return;
    }
    updateInterest();
    if (head == null && outputShutdownRequested && !outputShutdown) {
      shutdownOutputNow();
    }
  }

  /** Pops and completes the fully written entries at the head of the queue. */
  private void completeWrittenEntries() {
    while (head != null && !head.buffer.hasRemaining()) {
      PendingWrite done = head;
      head = done.next;
      if (head == null) {
        tail = null;
      }
      if (done.copied) {
        counters.addPendingCopyBytes(-done.buffer.capacity());
      }
      WriteListener.notify(done.listener, null);
    }
  }

  private void addPending(long delta) {
    pendingBytes += delta;
    counters.addPendingWriteBytes(delta);
    TransportConfig config = loop.config();
    if (writable && pendingBytes > config.writeHighWatermark()) {
      writable = false;
      fireWritability(false);
    } else if (!writable && pendingBytes <= config.writeLowWatermark()) {
      writable = true;
      fireWritability(true);
    }
  }

  private void fireWritability(boolean value) {
    try {
      handler.onWritabilityChanged(this, value);
    } catch (Throwable t) {
      closeNow(new CloseReason.Error(t));
    }
  }

  // ---- closing ----

  /**
   * Shuts down this side's output once pending writes are flushed (the peer reads EOF); reading
   * goes on. When the peer has also shut down its output, the connection closes normally.
   */
  @Override
  public void shutdownOutput() {
    loop.runOnLoop(
        () -> {
          if (closed || outputShutdownRequested) {
            return;
          }
          outputShutdownRequested = true;
          if (head == null && active) {
            shutdownOutputNow();
          }
        });
  }

  private void shutdownOutputNow() {
    try {
      channel.shutdownOutput();
    } catch (IOException e) {
      closeOnIoError(e);
      return;
    }
    outputShutdown = true;
    closeIfBothDirectionsDone();
  }

  private void closeIfBothDirectionsDone() {
    if (inputShutdown && outputShutdown) {
      closeNow(CloseReason.NORMAL);
    }
  }

  /** Closes now; writes still pending fail with {@link ConnectionClosedException}. */
  @Override
  public void close() {
    loop.runOnLoop(() -> closeNow(CloseReason.NORMAL));
  }

  /** Closes with a reset: SO_LINGER 0, so the peer sees RST; pending writes fail. */
  @Override
  public void reset() {
    loop.runOnLoop(
        () -> {
          if (closed) {
            return;
          }
          try {
            if (channel.supportedOptions().contains(StandardSocketOptions.SO_LINGER)) {
              channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
          } catch (IOException | UnsupportedOperationException e) {
            LOG.log(System.Logger.Level.DEBUG, "SO_LINGER 0 failed; closing normally", e);
          }
          closeNow(CloseReason.LOCAL_RESET);
        });
  }

  private void closeOnIoError(IOException e) {
    closeNow(classify(e));
  }

  static CloseReason classify(IOException e) {
    String message = String.valueOf(e.getMessage());
    if (message.contains("Connection reset") || message.contains("Broken pipe")) {
      return new CloseReason.PeerReset(message);
    }
    return new CloseReason.Error(e);
  }

  void closeNow(CloseReason reason) {
    if (closed) {
      return;
    }
    closed = true;
    closeReason = reason;
    loop.timers().cancel(timer);
    if (key != null) {
      key.cancel();
    }
    closeQuietly(channel);
    failPendingWrites();
    if (connectFuture != null) {
      CompletableFuture<Connection> f = connectFuture;
      connectFuture = null;
      f.completeExceptionally(
          reason instanceof CloseReason.ConnectTimeout(long ms)
              ? connectFailure(
                  remoteAddress, new SocketTimeoutException("timed out after " + ms + " ms"))
              : connectFailure(
                  remoteAddress, new ConnectionClosedException("closed: " + reason, reason)));
    }
    if (active) {
      try {
        handler.onClose(this, reason);
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "onClose handler failed for " + this, t);
      }
    }
  }

  private void failPendingWrites() {
    if (head == null) {
      return;
    }
    ConnectionClosedException error = closedException();
    PendingWrite w = head;
    head = null;
    tail = null;
    counters.addPendingWriteBytes(-pendingBytes);
    pendingBytes = 0;
    for (; w != null; w = w.next) {
      if (w.copied) {
        counters.addPendingCopyBytes(-w.buffer.capacity());
      }
      WriteListener.notify(w.listener, error);
    }
  }

  private ConnectionClosedException closedException() {
    return new ConnectionClosedException(
        "connection "
            + id
            + " to "
            + remoteAddress
            + " is closed ("
            + switch (closeReason) {
              case null -> "closing";
              case CloseReason.PeerReset(String detail) -> "peer_reset: " + detail;
              default -> closeReason.label();
            }
            + ")",
        closeReason);
  }

  private void failConnect(ConnectException e) {
    CompletableFuture<Connection> f = connectFuture;
    connectFuture = null;
    closed = true;
    closeReason = new CloseReason.Error(e);
    loop.timers().cancel(timer);
    if (key != null) {
      key.cancel();
    }
    closeQuietly(channel);
    if (f != null) {
      f.completeExceptionally(e);
    }
  }

  private void onConnectable() {
    try {
      if (channel.finishConnect()) {
        activate();
      }
    } catch (IOException e) {
      failConnect(connectFailure(remoteAddress, e));
    }
  }

  // ---- plumbing ----

  private void updateInterest() {
    if (closed || key == null || !key.isValid()) {
      return;
    }
    int ops;
    if (!active) {
      ops = SelectionKey.OP_CONNECT;
    } else {
      ops = 0;
      if (wantsRead()) {
        ops |= SelectionKey.OP_READ;
      }
      if (head != null) {
        ops |= SelectionKey.OP_WRITE;
      }
    }
    if (ops != interestOps) {
      interestOps = ops;
      key.interestOps(ops);
    }
  }

  private void scheduleIdleTimer(long nanos) {
    if (nanos > 0) {
      loop.timers().schedule(timer, nanos, loop.now());
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Closing is best effort; the close reason was recorded already.
    }
  }

  private EventLoop.Selectable selectable() {
    return new EventLoop.Selectable() {
      @Override
      public void onSelected(SelectionKey k) {
        int ready = k.readyOps();
        if ((ready & SelectionKey.OP_CONNECT) != 0) {
          onConnectable();
          return;
        }
        if ((ready & SelectionKey.OP_WRITE) != 0) {
          onWritable();
        }
        if ((ready & SelectionKey.OP_READ) != 0 && !closed) {
          onReadable();
        }
      }

      @Override
      public void onUnexpectedFailure(RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "unexpected failure on " + SocketConnection.this, e);
        closeNow(new CloseReason.Error(e));
      }

      @Override
      public void closeForShutdown() {
        closeNow(CloseReason.SHUTDOWN);
      }
    };
  }

  @Override
  public String toString() {
    return "SocketConnection[" + id + " " + remoteAddress + "]";
  }

  /** A caller's buffer waiting in the write queue. */
  private static final class PendingWrite {
    final ByteBuffer buffer;
    final WriteListener listener;
    final boolean copied;
    PendingWrite next;

    PendingWrite(ByteBuffer buffer, WriteListener listener, boolean copied) {
      this.buffer = buffer;
      this.listener = listener;
      this.copied = copied;
    }
  }

  /** The connect timeout before the connection is active, the idle timeout after. */
  private final class ConnectionTimer extends TimerWheel.Timer {
    @Override
    void expire() {
      if (closed) {
        return;
      }
      if (!active) {
        closeNow(new CloseReason.ConnectTimeout(options.connectTimeout().toMillis()));
        return;
      }
      long timeout = options.idleTimeout().toNanos();
      long idleFor = loop.now() - lastActivityNanos;
      if (idleFor >= timeout) {
        closeNow(new CloseReason.IdleTimeout(TimeUnit.NANOSECONDS.toMillis(timeout)));
      } else {
        scheduleIdleTimer(timeout - idleFor);
      }
    }
  }
}
