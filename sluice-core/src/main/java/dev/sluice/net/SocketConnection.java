package dev.sluice.net;

import dev.sluice.internal.ReadSlab;
import dev.sluice.internal.WriteEntry;
import dev.sluice.internal.WriteQueue;
import dev.sluice.memory.BorrowedBytes;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TCP or Unix-domain connection, living on one {@link EventLoop}, over a {@link StreamSocket}
 * of the loop's transport (NIO or epoll): the states, the write queue and the close logic here are
 * the same on both.
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

  /** How far this side's output has got towards shutdown. */
  private enum Output {
    OPEN,
    /** Shut down once the queue drains. */
    SHUTDOWN_PENDING,
    SHUT
  }

  private final long id = IDS.incrementAndGet();
  private final EventLoop loop;
  private final StreamSocket socket;
  private final SocketOptions options;
  private final SocketAddress remoteAddress;
  private final LoopCallbacks callbacks;
  private final WriteQueue queue;
  private ConnectionHandler handler;
  private boolean registered;
  private int interestOps = -1;
  private CompletableFuture<Connection> connectFuture;

  /** The loop's pipe this connection holds while its reads are spliced (always empty here). */
  private SplicePipes.Pipe pipe;

  private boolean active;
  private boolean inputEnded;
  private Output output = Output.OPEN;
  private boolean readingPaused;
  private int maxReadBytes = Integer.MAX_VALUE;
  private long lastActivityNanos;
  private long lastWriteNanos;
  private volatile CloseReason closeReason;
  private volatile Object attachment;

  private SocketConnection(
      EventLoop loop,
      StreamSocket socket,
      SocketAddress remoteAddress,
      SocketOptions options,
      ConnectionHandler handler) {
    this.loop = loop;
    this.socket = socket;
    this.remoteAddress = remoteAddress;
    this.options = options;
    this.handler = handler;
    this.callbacks = new LoopCallbacks();
    TransportConfig config = loop.config();
    this.queue =
        new WriteQueue(
            loop,
            loop.counters(),
            config.writeLowWatermark(),
            config.writeHighWatermark(),
            callbacks);
  }

  // ---- creation ----

  /** Adopts an accepted socket on the calling loop thread. */
  static void accepted(
      EventLoop loop, StreamSocket socket, SocketOptions options, ConnectionHandler handler) {
    SocketConnection c = null;
    try {
      c = new SocketConnection(loop, socket, socket.remoteAddress(), options, handler);
      loop.register(socket, 0, c.callbacks);
      c.registered = true;
      socket.configure(options);
      c.activate();
    } catch (IOException | RuntimeException e) {
      if (loop.isShuttingDown()) {
        LOG.log(System.Logger.Level.DEBUG, "accepted connection refused: loop shutting down");
      } else {
        LOG.log(System.Logger.Level.WARNING, "could not set up accepted connection", e);
      }
      if (c != null && c.active) {
        c.closeNow(new CloseReason.Error(e));
      } else {
        socket.close();
      }
    }
  }

  static void connect(
      EventLoop loop,
      SocketAddress address,
      SocketOptions options,
      ConnectionHandler handler,
      CompletableFuture<Connection> future) {
    if (loop.isShuttingDown()) {
      future.completeExceptionally(loop.shutDownConnect(address));
      return;
    }
    StreamSocket socket;
    try {
      socket = loop.poller().openStream(address);
    } catch (IOException | RuntimeException e) {
      future.completeExceptionally(connectFailure(address, e));
      return;
    }
    SocketConnection c = new SocketConnection(loop, socket, address, options, handler);
    c.connectFuture = future;
    try {
      loop.register(socket, 0, c.callbacks);
      c.registered = true;
      c.interestOps = 0;
      socket.configure(options);
      if (socket.connect(address)) {
        c.activate();
      } else {
        socket.interest(Poller.CONNECT);
        c.interestOps = Poller.CONNECT;
        long timeout = options.connectTimeout().toNanos();
        if (timeout > 0) {
          loop.timers().schedule(c.callbacks, timeout, loop.nanoTime());
        }
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

  private void activate() {
    active = true;
    lastActivityNanos = loop.nanoTime();
    lastWriteNanos = lastActivityNanos;
    loop.timers().cancel(callbacks);
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
      if (closeReason != null) {
        f.completeExceptionally(closedException());
      } else {
        f.complete(this);
      }
    }
  }

  // ---- accessors ----

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
    return remoteAddress;
  }

  @Override
  public SocketAddress localAddress() {
    return socket.localAddress();
  }

  @Override
  public boolean isOpen() {
    return closeReason == null;
  }

  @Override
  public boolean isWritable() {
    return queue.isWritable();
  }

  @Override
  public long pendingWriteBytes() {
    return queue.queuedBytes();
  }

  @Override
  public long lastActivityNanos() {
    return lastActivityNanos;
  }

  @Override
  public long lastWriteNanos() {
    return lastWriteNanos;
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
    this.attachment = value;
  }

  @Override
  public void switchHandler(ConnectionHandler next) {
    requireInLoop("switchHandler");
    handler = next;
    if (closeReason == null) {
      try {
        next.onActive(this);
      } catch (Throwable t) {
        closeNow(new CloseReason.Error(t));
      }
    }
  }

  private void requireInLoop(String what) {
    if (!loop.inLoop()) {
      throw new IllegalStateException(
          what + " must be called on the connection's event loop (" + loop + ")");
    }
  }

  // ---- reading ----

  @Override
  public void pauseReading() {
    loop.runOnLoop(
        () -> {
          readingPaused = true;
          releasePipe(); // empty between reads: a paused reader holds none of the loop's few
          updateInterest();
        });
  }

  @Override
  public void resumeReading() {
    loop.runOnLoop(
        () -> {
          if (readingPaused) {
            readingPaused = false;
            lastActivityNanos = loop.nanoTime(); // busy until now: idleness starts here
            updateInterest();
          }
        });
  }

  @Override
  public void setMaxReadBytes(int bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("maxReadBytes must be at least 1, not " + bytes);
    }
    loop.runOnLoop(() -> maxReadBytes = bytes);
  }

  private void onReadable() {
    ReadSlab slab = loop.readSlab();
    int maxReads = loop.config().maxReadsPerEvent();
    for (int i = 0; i < maxReads && wantsRead(); i++) {
      if (!handler.mayRead(this)) {
        readingPaused = true;
        releasePipe();
        updateInterest();
        return;
      }
      int spliced = spliceRead();
      if (spliced == SPLICED_AGAIN) {
        continue;
      }
      if (spliced == SPLICED_DONE) {
        return;
      }
      ByteBuffer target = slab.prepareRead();
      if (maxReadBytes < target.remaining()) {
        target.limit(maxReadBytes);
      }
      int capacity = target.remaining();
      int n;
      try {
        n = socket.read(target);
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
      lastActivityNanos = loop.nanoTime();
      BorrowedBytes bytes = slab.borrow(n);
      try {
        handler.onRead(this, bytes);
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

  private static final int NOT_SPLICED = 0;
  private static final int SPLICED_AGAIN = 1;
  private static final int SPLICED_DONE = 2;

  /**
   * Moves one read to the target the handler names inside the kernel, through a pipe of the loop's:
   * {@link #NOT_SPLICED} when it names none or splicing cannot serve (then the read is an ordinary
   * one), {@link #SPLICED_AGAIN} when the read filled (read on), {@link #SPLICED_DONE} when the
   * socket is drained, ended or failed. The pipe is empty again before the handler hears of the
   * read: what the target did not take is copied out at exact size for the handler.
   */
  private int spliceRead() {
    if (!(socket instanceof EpollStreamSocket from)
        || loop.config().splicePipesPerLoop() == 0
        || from.urgent()) {
      releasePipe(); // (urgent data: only a copying read steps over its mark)
      return NOT_SPLICED;
    }
    Connection asked = handler.spliceTarget(this);
    if (!(asked instanceof SocketConnection to) || !to.takesSplice(loop)) {
      releasePipe();
      return NOT_SPLICED;
    }
    EpollPoller.Scratch scratch = from.scratch();
    SplicePipes pipes = loop.local(SplicePipes.SLOT);
    if (pipe == null) {
      try {
        pipe = pipes.acquire(scratch);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "no pipe for splicing; copying instead", e);
      }
      if (pipe == null) {
        loop.countSplicePoolEmpty();
        return NOT_SPLICED;
      }
    }
    int max = Math.min(maxReadBytes, loop.config().slabSize());
    long n;
    try {
      n = pipe.fill(scratch, from.fd(), max);
    } catch (IOException e) {
      releasePipe(); // nothing moved: still empty
      closeOnIoError(e);
      return SPLICED_DONE;
    }
    if (n <= 0) {
      releasePipe();
      if (n < 0) {
        // A splice stopped at an urgent mark also returns 0 once the input has ended, with bytes
        // behind the mark: an ordinary read tells which.
        return NOT_SPLICED;
      }
      // EAGAIN into an empty pipe: the socket has nothing now, or urgent data stopped the splice
      // (its EPOLLPRI makes the socket readable again, and then it is read by copying).
      from.readDrained();
      return SPLICED_DONE;
    }
    lastActivityNanos = loop.nanoTime();
    ByteBuffer rest = null;
    EpollStreamSocket target = (EpollStreamSocket) to.socket;
    try {
      long moved = pipe.drainTo(scratch, target.fd(), n);
      if (moved > 0) {
        to.lastActivityNanos = lastActivityNanos;
        to.lastWriteNanos = lastActivityNanos;
      }
      if (moved < n) {
        target.writeBlocked();
        rest = pipe.copyOut(scratch, loop.staging(), (int) (n - moved));
      }
      loop.countSplice(moved, n - moved);
    } catch (IOException e) {
      pipes.discard(pipe); // bytes of unknown count are left in it
      pipe = null;
      to.closeOnIoError(e); // the target's socket failed: what it was sent is lost
    }
    if (rest != null || n < max) {
      releasePipe(); // its target stalled, or this connection is no longer streaming
    }
    try {
      handler.onSpliced(this, to, (int) n, rest);
    } catch (Throwable t) {
      closeNow(new CloseReason.Error(t));
      return SPLICED_DONE;
    }
    // A short splice may be a full pipe, not a drained socket: it stays ready, and the next pass
    // (or this one's next read) learns which.
    return n < max ? SPLICED_DONE : SPLICED_AGAIN;
  }

  /** Whether a read spliced from a connection of {@code readerLoop} may be written here now. */
  private boolean takesSplice(EventLoop readerLoop) {
    return loop == readerLoop
        && socket instanceof EpollStreamSocket
        && active
        && closeReason == null
        && output == Output.OPEN
        && queue.isEmpty();
  }

  private void releasePipe() {
    if (pipe != null) {
      pipe.pool.release(pipe);
      pipe = null;
    }
  }

  private boolean wantsRead() {
    return active && closeReason == null && !inputEnded && !readingPaused;
  }

  private void onEndOfInput() {
    inputEnded = true;
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
   * @param listener told of completion or failure on the loop, after this call returns; may be null
   * @throws IllegalArgumentException when {@code buffer} is a borrowed read (use {@link
   *     #writeTransient})
   */
  @Override
  public void write(ByteBuffer buffer, WriteListener listener) {
    if (loop.inLoop()) {
      loop.lenders().refuse(buffer);
      enqueueWrite(buffer, listener, false);
    } else {
      WriteEntry.submit(
          loop, listener, () -> enqueueWrite(buffer, listener, false), this::closedException);
    }
  }

  /**
   * Writes bytes that are valid only during this call (e.g. a {@link BorrowedBytes} buffer from a
   * read callback): what the socket accepts now is written from {@code source}; only the remainder
   * is copied, at exact size, and queued. Loop thread only.
   *
   * @param listener told of completion or failure, after this call returns; may be null
   */
  @Override
  public void writeTransient(ByteBuffer source, WriteListener listener) {
    WriteEntry.requireLoopForTransient(loop);
    enqueueWrite(source, listener, true);
  }

  private void enqueueWrite(ByteBuffer buffer, WriteListener listener, boolean transientSource) {
    if (closeReason != null) {
      loop.completeLater(listener, closedException());
      return;
    }
    if (output != Output.OPEN) {
      loop.completeLater(listener, outputShutDownException());
      return;
    }
    if (queue.isEmpty() && active) {
      try {
        writeNow(buffer);
      } catch (IOException e) {
        closeOnIoError(e);
        loop.completeLater(listener, closedException()); // like every other write the break fails
        return;
      } catch (RuntimeException e) {
        // Not the socket's doing (a buffer this thread may not touch, say): fail it loudly.
        loop.completeLater(listener, e);
        closeNow(new CloseReason.Error(e));
        return;
      }
      if (!buffer.hasRemaining()) {
        loop.completeLater(listener, null);
        return;
      }
    }
    if (transientSource) {
      queue.addCopy(buffer, listener);
    } else {
      queue.add(buffer, listener);
    }
    queue.updateWritability(queue.queuedBytes());
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
          n = socket.write(buffer);
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
        int n = socket.write(staging);
        buffer.position(buffer.position() + n);
        total += n;
        if (n < len) {
          break;
        }
      }
    }
    if (total > 0) {
      lastActivityNanos = loop.nanoTime();
      lastWriteNanos = lastActivityNanos;
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

  /**
   * Writes queued bytes until the socket is full. Nothing here calls application code: the
   * completions it makes are delivered after the current callback.
   */
  private void flush() throws IOException {
    boolean gatherAllowed = loop.config().maxBytesPerSocketWrite() == 0;
    while (!queue.isEmpty() && closeReason == null) {
      ByteBuffer first = queue.headBuffer();
      boolean socketFull;
      long written;
      if (gatherAllowed && first.isDirect()) {
        ByteBuffer[] gather = loop.gatherArray();
        int count = queue.gather(gather, true);
        long attempted = 0;
        for (int i = 0; i < count; i++) {
          attempted += gather[i].remaining();
        }
        try {
          written = socket.write(gather, 0, count);
        } finally {
          Arrays.fill(gather, 0, count, null);
        }
        if (written > 0) {
          lastActivityNanos = loop.nanoTime();
          lastWriteNanos = lastActivityNanos;
        }
        socketFull = written < attempted;
      } else {
        written = writeNow(first);
        socketFull = first.hasRemaining();
      }
      queue.taken(written);
      queue.completeThrough(queue.takenOffset());
      if (socketFull) {
        break;
      }
    }
    if (closeReason != null) {
      return;
    }
    queue.updateWritability(queue.queuedBytes());
    updateInterest();
    if (queue.isEmpty() && output == Output.SHUTDOWN_PENDING) {
      shutdownOutputNow();
    }
  }

  private void onWritabilityChanged(boolean writable) {
    if (closeReason != null || !active) {
      return;
    }
    try {
      handler.onWritabilityChanged(this, writable);
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
          if (closeReason != null || output != Output.OPEN) {
            return;
          }
          output = Output.SHUTDOWN_PENDING;
          if (queue.isEmpty() && active) {
            shutdownOutputNow();
          }
        });
  }

  private void shutdownOutputNow() {
    // Once the input has ended the connection closes at once, and the close sends the FIN: a
    // shutdown first would be a system call per connection for nothing.
    if (!inputEnded) {
      try {
        socket.shutdownOutput();
      } catch (IOException e) {
        closeOnIoError(e);
        return;
      }
    }
    output = Output.SHUT;
    closeIfBothDirectionsDone();
  }

  private void closeIfBothDirectionsDone() {
    if (inputEnded && output == Output.SHUT) {
      closeNow(CloseReason.NORMAL);
    }
  }

  @Override
  public void close(CloseReason reason) {
    loop.runOnLoop(() -> closeNow(reason));
  }

  @Override
  public void reset() {
    loop.runOnLoop(
        () -> {
          if (closeReason != null) {
            return;
          }
          try {
            socket.lingerZero();
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
    if (closeReason != null) {
      return;
    }
    closeReason = reason; // one volatile write: closed, and why, become visible together
    loop.timers().cancel(callbacks);
    releasePipe();
    socket.close();
    queue.failAll(this::closedException);
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

  private ConnectionClosedException closedException() {
    return ConnectionClosedException.closed("connection " + id, remoteAddress, closeReason);
  }

  private ConnectionClosedException outputShutDownException() {
    return new ConnectionClosedException(
        "connection " + id + " to " + remoteAddress + ": output already shut down", null);
  }

  private void failConnect(ConnectException e) {
    CompletableFuture<Connection> f = connectFuture;
    connectFuture = null;
    closeReason = new CloseReason.Error(e);
    loop.timers().cancel(callbacks);
    socket.close();
    if (f != null) {
      f.completeExceptionally(e);
    }
  }

  private void onConnectable() {
    try {
      if (socket.finishConnect()) {
        activate();
      }
    } catch (IOException e) {
      failConnect(connectFailure(remoteAddress, e));
    }
  }

  // ---- plumbing ----

  private void updateInterest() {
    if (closeReason != null || !registered) {
      return;
    }
    int ops;
    if (!active) {
      ops = Poller.CONNECT;
    } else {
      ops = 0;
      if (wantsRead()) {
        ops |= Poller.READ;
      }
      if (!queue.isEmpty()) {
        ops |= Poller.WRITE;
      }
    }
    if (ops != interestOps) {
      interestOps = ops;
      try {
        socket.interest(ops);
      } catch (IOException e) {
        closeOnIoError(e);
      }
    }
  }

  private void scheduleIdleTimer(long nanos) {
    if (nanos > 0) {
      loop.timers().schedule(callbacks, nanos, loop.nanoTime());
    }
  }

  @Override
  public String toString() {
    return "SocketConnection[" + id + " " + remoteAddress + "]";
  }

  /**
   * What the loop calls back on this connection, in one object (each is per connection, and a
   * parked proxied pair holds two connections): its socket's readiness, its queue's writability,
   * and its timer, which is the connect timeout before the connection is active and the idle
   * timeout after. Idle means no bytes moved and nothing pending: a connection with queued writes,
   * or paused for backpressure, is busy, and the timer looks again a whole timeout later.
   */
  private final class LoopCallbacks extends TimerWheel.Timer
      implements Pollable, WriteQueue.WritabilitySink {
    @Override
    public void onReady(int ready) {
      if ((ready & Poller.CONNECT) != 0) {
        onConnectable();
        return;
      }
      if ((ready & Poller.WRITE) != 0) {
        onWritable();
      }
      if ((ready & Poller.READ) != 0 && closeReason == null) {
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
      if (active) {
        closeNow(CloseReason.SHUTDOWN);
      } else {
        failConnect(loop.shutDownConnect(remoteAddress));
      }
    }

    @Override
    public void writabilityChanged(boolean writable) {
      onWritabilityChanged(writable);
    }

    @Override
    void expire() {
      if (closeReason != null) {
        return;
      }
      if (!active) {
        closeNow(new CloseReason.ConnectTimeout(options.connectTimeout().toMillis()));
        return;
      }
      long timeout = options.idleTimeout().toNanos();
      if (!queue.isEmpty() || readingPaused) {
        scheduleIdleTimer(timeout);
        return;
      }
      long idleFor = loop.nanoTime() - lastActivityNanos;
      if (idleFor >= timeout) {
        closeNow(new CloseReason.IdleTimeout(TimeUnit.NANOSECONDS.toMillis(timeout)));
      } else {
        scheduleIdleTimer(timeout - idleFor);
      }
    }
  }
}
