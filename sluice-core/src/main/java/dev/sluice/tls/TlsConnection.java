package dev.sluice.tls;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.MemoryCounters;
import dev.sluice.memory.ReadSlab;
import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionClosedException;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * A TLS connection layered on a transport {@link Connection} (TCP or Unix-domain), on the JDK's
 * {@link SSLEngine}. It is the transport's handler, and presents the decrypted stream to the
 * application's own {@link ConnectionHandler} under the same contracts as plain TCP.
 *
 * <p><b>Reads.</b> Ciphertext is decrypted straight from the loop's read slab (lent, not copied)
 * into the loop's plaintext slab, which is lent to the application as {@link BorrowedBytes}: a read
 * it keeps is an exact-size copy up to the copy threshold and a whole-slab hand-off above it. The
 * only ciphertext a connection keeps is a trailing partial record (or, while the application has
 * paused reading, the rest of the read it paused in), copied at exact size.
 *
 * <p><b>Writes.</b> The application's buffers are queued by reference. At most {@value
 * TlsLoopBuffers#RECORDS_PER_WRITE} records are encrypted ahead of what the socket has accepted,
 * into the loop's ciphertext buffer; only the part the socket did not take is copied (exact size),
 * and the next records are encrypted when it drains. A write completes when the ciphertext of its
 * last byte has been handed to the socket.
 *
 * <p><b>Lifecycle.</b> {@link ConnectionHandler#onActive} runs when the handshake has finished. A
 * handshake that fails or times out never reaches the handler: the connection closes with a {@link
 * CloseReason.TlsFailure}, which a handler implementing {@link TlsHandshakeListener} hears. Closing
 * sends close_notify; receiving close_notify is the end of input ({@link
 * ConnectionHandler#onEndOfInput}); the transport closing without it is reported as {@link
 * Kind#TRUNCATED}. With TLS 1.3 either side may shut down its output and go on reading; with TLS
 * 1.2 the JDK answers a close_notify with its own, so writes after the peer's close_notify fail.
 *
 * <p>An idle TLS connection holds no buffer: only its {@link SSLEngine} and the queues' (empty)
 * heads.
 */
public final class TlsConnection implements Connection {
  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");
  private static final ByteBuffer[] NO_DATA = new ByteBuffer[0];

  /** Ciphertext batches written in one go before the loop serves its other connections. */
  private static final int MAX_BATCHES_PER_FLUSH = 64;

  /** Creates the engine for a transport connection that just became active. */
  @FunctionalInterface
  interface EngineFactory {
    SSLEngine create(Connection transport) throws SSLException;
  }

  private final EngineFactory engineFactory;
  private final ConnectionHandler app;
  private final Duration handshakeTimeout;
  private final CompletableFuture<TlsConnection> ready;
  private final TransportHandler transportHandler = new TransportHandler();
  private final WriteListener batchWritten = this::onBatchWritten;
  private final WriteListener closeNotifyWritten = this::onCloseNotifyWritten;

  private Connection transport;
  private EventLoop loop;
  private TlsLoopBuffers buffers;
  private MemoryCounters counters;
  private SSLEngine engine;
  private EventLoop.Timeout handshakeTimer;

  private boolean appActive;
  private volatile boolean closed;
  private volatile CloseReason closeReason;
  private CloseReason closingReason;
  private boolean inboundDone;
  private boolean readingPaused;
  private boolean drainScheduled;
  private byte[] heldCiphertext;
  private boolean ciphertextSeen;
  private volatile Object attachment;

  // Writes: the application's buffers by reference, in order.
  private PlaintextQueue writes;
  private volatile boolean writable = true;
  private boolean batchInFlight;
  private boolean flushing;
  private boolean flushRequested;
  private boolean flushScheduled;
  private final Runnable scheduledFlush = this::runScheduledFlush;
  private boolean outputShutdownRequested;
  private boolean closeNotifyQueued;
  private boolean closeNotifySent;
  private boolean closeNotifyNeedsFollowUp;

  TlsConnection(
      EngineFactory engineFactory,
      ConnectionHandler app,
      Duration handshakeTimeout,
      CompletableFuture<TlsConnection> ready) {
    this.engineFactory = engineFactory;
    this.app = app;
    this.handshakeTimeout = handshakeTimeout;
    this.ready = ready;
  }

  /** The handler to give the transport connection. */
  ConnectionHandler transportHandler() {
    return transportHandler;
  }

  // ---- accessors ----

  @Override
  public long id() {
    return transport.id();
  }

  @Override
  public EventLoop loop() {
    return loop;
  }

  @Override
  public SocketAddress remoteAddress() {
    return transport.remoteAddress();
  }

  @Override
  public SocketAddress localAddress() {
    return transport.localAddress();
  }

  @Override
  public boolean isOpen() {
    return !closed;
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  /** Plaintext queued and not yet encrypted, plus ciphertext not yet handed to the socket. */
  @Override
  public long pendingWriteBytes() {
    return writes.unencryptedBytes() + transport.pendingWriteBytes();
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

  /** The connection TLS runs over. */
  public Connection transport() {
    return transport;
  }

  /** The TLS session: protocol, cipher suite, peer certificates... */
  public SSLSession session() {
    return engine.getSession();
  }

  /** The protocol chosen by ALPN, or null when none was. */
  public String applicationProtocol() {
    String protocol = engine.getApplicationProtocol();
    return protocol == null || protocol.isEmpty() ? null : protocol;
  }

  /** Ciphertext this connection holds between reads, in bytes (0 when idle). Loop thread only. */
  public int heldCiphertextBytes() {
    return heldCiphertext == null ? 0 : heldCiphertext.length;
  }

  // ---- application API ----

  @Override
  public void pauseReading() {
    onLoop(
        () -> {
          readingPaused = true;
          transport.pauseReading();
        });
  }

  @Override
  public void resumeReading() {
    onLoop(
        () -> {
          if (!readingPaused) {
            return;
          }
          readingPaused = false;
          // Later, not now: we may be inside this connection's own read callback.
          if (!drainScheduled) {
            drainScheduled = true;
            loop.execute(this::drainHeldAndResume);
          }
        });
  }

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

  @Override
  public void writeTransient(ByteBuffer source, WriteListener listener) {
    if (!loop.inLoop()) {
      throw new IllegalStateException(
          "writeTransient must be called on the connection's event loop (" + loop + ")");
    }
    enqueueWrite(source, listener, true);
  }

  /**
   * Once pending writes are encrypted, sends close_notify and shuts down the transport's output;
   * reading goes on (TLS 1.3; a TLS 1.2 peer answers with its own close_notify).
   */
  @Override
  public void shutdownOutput() {
    onLoop(
        () -> {
          if (closed || outputShutdownRequested) {
            return;
          }
          outputShutdownRequested = true;
          flushOutbound();
        });
  }

  /** Sends close_notify (if the socket takes it at once) and closes; pending writes fail. */
  @Override
  public void close() {
    onLoop(
        () -> {
          if (flushScheduled) {
            runScheduledFlush(); // writes made before close() go out as they would on plain TCP
          }
          closeWith(CloseReason.NORMAL);
        });
  }

  /** Closes the transport with a reset, without close_notify. */
  @Override
  public void reset() {
    onLoop(
        () -> {
          if (!closed && closingReason == null) {
            closingReason = CloseReason.LOCAL_RESET;
            transport.reset();
          }
        });
  }

  // ---- handshake ----

  private void onTransportActive(Connection connection) {
    transport = connection;
    loop = connection.loop();
    buffers = loop.local(TlsLoopBuffers.SLOT);
    counters = buffers.counters();
    writes = new PlaintextQueue(counters);
    try {
      engine = engineFactory.create(connection);
      engine.beginHandshake();
    } catch (SSLException | RuntimeException e) {
      fail(Kind.HANDSHAKE_FAILED, "cannot start the TLS handshake: " + e.getMessage(), e);
      return;
    }
    handshakeTimer = loop.schedule(handshakeTimeout, this::onHandshakeTimeout);
    flushOutbound(); // a client's ClientHello; nothing yet for a server
  }

  private void onHandshakeTimeout() {
    if (!appActive && !closed) {
      fail(
          Kind.HANDSHAKE_TIMEOUT,
          "no TLS handshake within " + handshakeTimeout.toMillis() + " ms",
          null);
    }
  }

  private void onHandshakeFinished() {
    if (appActive || closed || closingReason != null) {
      return;
    }
    appActive = true;
    handshakeTimer.cancel();
    try {
      app.onActive(this);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
    }
    if (ready != null) {
      if (closed || closingReason != null) {
        ready.completeExceptionally(closedException());
      } else {
        ready.complete(this);
      }
    }
    flushOutbound(); // anything written in onActive
  }

  private void runDelegatedTasks() {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) {
      task.run();
    }
  }

  // ---- reading ----

  private static final String[] HTTP_METHODS = {
    "GET ", "HEAD", "POST", "PUT ", "DELE", "OPTI", "PATC", "CONN", "TRAC", "PRI "
  };

  /** Whether a server's first bytes are an HTTP request line rather than a ClientHello. */
  private static boolean looksLikeHttp(ByteBuffer src) {
    if (src.remaining() < 4) {
      return false;
    }
    for (String method : HTTP_METHODS) {
      boolean match = true;
      for (int i = 0; i < 4 && match; i++) {
        match = src.get(src.position() + i) == method.charAt(i);
      }
      if (match) {
        return true;
      }
    }
    return false;
  }

  private void onCiphertext(ByteBuffer src) {
    if (closed || closingReason != null || engine == null) {
      return;
    }
    if (!ciphertextSeen) {
      ciphertextSeen = true;
      if (!engine.getUseClientMode() && looksLikeHttp(src)) {
        fail(Kind.HANDSHAKE_FAILED, "a plaintext HTTP request on a TLS port", null);
        return;
      }
    }
    ReadSlab slab = buffers.plaintext();
    ByteBuffer plaintext = slab.prepareRead();
    if (heldCiphertext == null) {
      plaintext = unwrapInto(src, slab, plaintext);
      finishRead(slab, plaintext);
      keepRemainder(src, null, 0);
      return;
    }
    // Complete the partial record kept from the last read in the loop's assembly buffer, then go
    // on decrypting straight from the read slab; the application gets both in one delivery.
    byte[] prefix = releaseHeld();
    ByteBuffer assembly = buffers.assembly();
    if (prefix.length >= assembly.capacity()) {
      fail(Kind.PROTOCOL_ERROR, "a TLS record larger than " + assembly.capacity() + " B", null);
      return;
    }
    int start = src.position();
    int appended = Math.min(src.remaining(), assembly.capacity() - prefix.length);
    assembly.put(prefix).put(assembly.position(), src, start, appended);
    assembly.limit(prefix.length + appended).position(0);
    plaintext = unwrapInto(assembly, slab, plaintext);
    if (plaintext == null) {
      return;
    }
    int consumed = assembly.position();
    if (consumed >= prefix.length) {
      src.position(start + consumed - prefix.length);
      plaintext = unwrapInto(src, slab, plaintext);
      finishRead(slab, plaintext);
      keepRemainder(src, null, 0);
    } else {
      src.position(start);
      finishRead(slab, plaintext);
      keepRemainder(src, prefix, consumed);
    }
  }

  /** Decrypts {@code src} on its own (held ciphertext, after a pause). */
  private void decrypt(ByteBuffer src) {
    ReadSlab slab = buffers.plaintext();
    finishRead(slab, unwrapInto(src, slab, slab.prepareRead()));
  }

  /**
   * Decrypts records from {@code src} into {@code dst} (the loop's plaintext slab, lent to the
   * application whenever it fills) until {@code src} runs dry, ends in a partial record, or reading
   * must stop. Returns the plaintext buffer to go on with, or null when the connection is closing.
   */
  private ByteBuffer unwrapInto(ByteBuffer src, ReadSlab slab, ByteBuffer dst) {
    int idleSteps = 0;
    while (src.hasRemaining() && mayRead()) {
      SSLEngineResult result;
      try {
        result = engine.unwrap(src, dst);
      } catch (SSLException e) {
        deliver(slab, dst);
        failOnEngineError(e);
        return null;
      }
      Status status = result.getStatus();
      if (status == Status.BUFFER_UNDERFLOW) {
        break;
      }
      if (status == Status.BUFFER_OVERFLOW) {
        if (dst.position() == 0) {
          fail(Kind.PROTOCOL_ERROR, "a TLS record does not fit the plaintext slab", null);
          return null;
        }
        deliver(slab, dst);
        dst = slab.prepareRead();
        continue;
      }
      if (status == Status.CLOSED) {
        inboundDone = true; // close_notify: deliver what came before it, then the end of input
        break;
      }
      idleSteps = result.bytesConsumed() == 0 && result.bytesProduced() == 0 ? idleSteps + 1 : 0;
      if (!afterEngineStep(result.getHandshakeStatus())) {
        return null;
      }
      if (idleSteps > 2) {
        fail(Kind.PROTOCOL_ERROR, "the TLS engine stopped making progress", null);
        return null;
      }
    }
    return closed || closingReason != null ? null : dst;
  }

  /** Lends the last plaintext to the application, then reports close_notify if it came. */
  private void finishRead(ReadSlab slab, ByteBuffer dst) {
    if (dst == null) {
      return;
    }
    deliver(slab, dst);
    if (inboundDone && !closed && closingReason == null) {
      onCloseNotifyReceived();
    }
  }

  private boolean mayRead() {
    return !closed && closingReason == null && !inboundDone && !(appActive && readingPaused);
  }

  /** Handles what the engine wants after a step; false when the connection is closing. */
  private boolean afterEngineStep(HandshakeStatus status) {
    if (status == HandshakeStatus.NEED_TASK) {
      runDelegatedTasks();
    }
    boolean renegotiated = status == HandshakeStatus.FINISHED && appActive;
    if (status == HandshakeStatus.FINISHED) {
      onHandshakeFinished();
    }
    // A TLS 1.2 renegotiation held application writes back; they may go on now.
    if (!closed && (renegotiated || engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP)) {
      flushOutbound();
    }
    return !closed && closingReason == null;
  }

  /** Lends the plaintext decrypted so far to the application. */
  private void deliver(ReadSlab slab, ByteBuffer dst) {
    int length = dst.position();
    if (length == 0 || closed || closingReason != null) {
      return;
    }
    BorrowedBytes bytes = slab.borrow(length);
    try {
      app.onReadBorrowed(this, bytes);
    } catch (Throwable t) {
      slab.endBorrow();
      closeWith(new CloseReason.Error(t));
      return;
    }
    slab.endBorrow();
  }

  /**
   * Keeps what is left of {@code src} (after {@code prefix[from..]}, a kept partial record) at
   * exact size: a trailing partial record, or the rest of a read the application paused in.
   */
  private void keepRemainder(ByteBuffer src, byte[] prefix, int from) {
    int prefixLength = prefix == null ? 0 : prefix.length - from;
    int length = prefixLength + src.remaining();
    if (length == 0 || closed || closingReason != null || inboundDone) {
      return; // after close_notify nothing more is read
    }
    boolean paused = appActive && readingPaused;
    if (!paused && length >= TlsLoopBuffers.MAX_PACKET) {
      fail(
          Kind.PROTOCOL_ERROR,
          "a TLS record larger than " + TlsLoopBuffers.MAX_PACKET + " B is incomplete",
          null);
      return;
    }
    byte[] kept = new byte[length];
    if (prefixLength > 0) {
      System.arraycopy(prefix, from, kept, 0, prefixLength);
    }
    src.get(kept, prefixLength, src.remaining());
    heldCiphertext = kept;
    counters.addTlsHeldCiphertextBytes(length);
  }

  private byte[] releaseHeld() {
    byte[] held = heldCiphertext;
    if (held != null) {
      heldCiphertext = null;
      counters.addTlsHeldCiphertextBytes(-held.length);
    }
    return held;
  }

  private void drainHeldAndResume() {
    drainScheduled = false;
    if (closed || readingPaused) {
      return;
    }
    byte[] held = releaseHeld();
    if (held != null) {
      ByteBuffer src = ByteBuffer.wrap(held);
      decrypt(src);
      keepRemainder(src, null, 0);
    }
    if (!closed && !readingPaused) {
      transport.resumeReading();
    }
  }

  private void onCloseNotifyReceived() {
    if (!appActive) {
      fail(Kind.HANDSHAKE_FAILED, "the peer closed the connection during the handshake", null);
      return;
    }
    if (engine.isOutboundDone()) {
      writes.failAll(
          new ConnectionClosedException(
              "the peer closed the TLS session and the protocol ("
                  + engine.getSession().getProtocol()
                  + ") has no half-close: output closed too",
              null));
    }
    try {
      app.onEndOfInput(this);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
      return;
    }
    flushOutbound(); // a TLS 1.2 engine answers with close_notify
    closeIfBothDirectionsDone();
  }

  private void onTransportEndOfInput() {
    if (closed || closingReason != null) {
      return;
    }
    if (inboundDone) {
      return; // the FIN that follows close_notify
    }
    String detail;
    Kind kind;
    if (heldCiphertext != null && appActive) {
      kind = Kind.TRUNCATED;
      detail =
          "the peer closed the connection in the middle of a TLS record ("
              + heldCiphertext.length
              + " B of it received)";
    } else if (!appActive) {
      kind = Kind.HANDSHAKE_FAILED;
      detail = "the peer closed the connection during the TLS handshake";
    } else {
      kind = Kind.TRUNCATED;
      detail = "the peer closed the connection without close_notify";
    }
    SSLException cause = null;
    try {
      engine.closeInbound();
    } catch (SSLException e) {
      cause = e;
    }
    fail(kind, detail, cause);
  }

  // ---- writing ----

  private void enqueueWrite(ByteBuffer buffer, WriteListener listener, boolean transientSource) {
    if (closed || closingReason != null) {
      WriteListener.notify(listener, closedException());
      return;
    }
    if (outputShutdownRequested || closeNotifyQueued || engine.isOutboundDone()) {
      WriteListener.notify(
          listener, new ConnectionClosedException("TLS output already shut down", null));
      return;
    }
    if (!buffer.hasRemaining() && writes.isEmpty()) {
      WriteListener.notify(listener, null);
      return;
    }
    PlaintextQueue.Entry entry = writes.add(buffer, listener);
    if (appActive) {
      if (transientSource) {
        flushOutbound(); // the source dies with this call: send what the socket takes now
      } else {
        // Encrypt when this turn of the loop ends, so writes made together share records (a
        // record per small write costs a cipher pass, 22 B and a syscall each).
        scheduleFlush();
      }
    }
    if (transientSource && !closed) {
      writes.copyRest(entry);
    }
    updateWritability();
  }

  /**
   * Encrypts and writes what the engine and the queue have to send: handshake messages and alerts
   * always, application data only while no earlier batch is still waiting for the socket.
   */
  private void flushOutbound() {
    if (closed || engine == null) {
      return;
    }
    if (flushing) {
      flushRequested = true;
      return;
    }
    flushing = true;
    boolean handshakeFinished = false;
    try {
      int batches = 0;
      do {
        flushRequested = false;
        while (!closed) {
          ByteBuffer out = buffers.ciphertextOut();
          int produced = produce(out);
          if ((produced & PRODUCED_FINISHED) != 0) {
            handshakeFinished = true;
          }
          if (out.position() == 0) {
            break;
          }
          out.flip();
          if ((produced & PRODUCED_APP_DATA) != 0) {
            batchInFlight = true;
            batches++;
            transport.writeTransient(out, batchWritten);
          } else if ((produced & PRODUCED_CLOSE_NOTIFY) != 0) {
            transport.writeTransient(out, closeNotifyWritten);
          } else {
            transport.writeTransient(out, null);
          }
          if (batches >= MAX_BATCHES_PER_FLUSH && !batchInFlight) {
            scheduleFlush(); // let the loop serve its other connections
            break;
          }
        }
      } while (flushRequested && !closed);
    } catch (SSLException e) {
      flushing = false;
      failOnEngineError(e);
      return;
    } finally {
      flushing = false;
    }
    // Application code runs only now, with the loop's ciphertext buffer free again.
    if (closed) {
      return;
    }
    if (handshakeFinished) {
      onHandshakeFinished();
    }
    if (!batchInFlight) {
      writes.completeEncrypted();
    }
    updateWritability();
    if (closeNotifyNeedsFollowUp) {
      closeNotifyNeedsFollowUp = false;
      afterCloseNotifySent();
    }
  }

  private static final int PRODUCED_APP_DATA = 1;
  private static final int PRODUCED_FINISHED = 2;
  private static final int PRODUCED_CLOSE_NOTIFY = 4;

  /** Fills {@code out} with what should go next; returns PRODUCED_* flags. */
  private int produce(ByteBuffer out) throws SSLException {
    int flags = 0;
    int packetSize = engine.getSession().getPacketBufferSize();
    int records = 0;
    while (true) {
      HandshakeStatus status = engine.getHandshakeStatus();
      if (status == HandshakeStatus.NEED_TASK) {
        runDelegatedTasks();
        continue;
      }
      if (status == HandshakeStatus.NEED_WRAP) {
        if (out.remaining() < packetSize && out.position() > 0) {
          return flags;
        }
        SSLEngineResult result = engine.wrap(NO_DATA, out);
        if (result.getStatus() == Status.BUFFER_OVERFLOW) {
          if (out.position() == 0) {
            throw new SSLException("the ciphertext buffer is too small for a TLS record");
          }
          return flags;
        }
        if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) {
          flags |= PRODUCED_FINISHED;
        }
        if (result.getStatus() == Status.CLOSED && engine.isOutboundDone()) {
          flags |= PRODUCED_CLOSE_NOTIFY;
          return flags;
        }
        continue;
      }
      if (!appActive || engine.isOutboundDone() || closeNotifyQueued) {
        return flags;
      }
      if (writes.unencryptedBytes() > 0) {
        if (batchInFlight
            || records >= TlsLoopBuffers.RECORDS_PER_WRITE
            || out.remaining() < packetSize) {
          return flags;
        }
        SSLEngineResult result = wrapApplicationData(out);
        if (result.getStatus() == Status.CLOSED) {
          writes.failAll(new ConnectionClosedException("TLS output closed", null));
          return flags;
        }
        if (result.getStatus() == Status.BUFFER_OVERFLOW) {
          return flags;
        }
        records++;
        flags |= PRODUCED_APP_DATA;
        continue;
      }
      if (outputShutdownRequested || closingReason != null) {
        if ((flags & PRODUCED_APP_DATA) != 0) {
          return flags; // close_notify goes in a batch of its own, which has its own listener
        }
        closeNotifyQueued = true;
        engine.closeOutbound(); // the next NEED_WRAP produces close_notify
        continue;
      }
      return flags;
    }
  }

  /** Encrypts one record from the head of the queue, gathering small buffers together. */
  private SSLEngineResult wrapApplicationData(ByteBuffer out) throws SSLException {
    ByteBuffer[] gather = buffers.gather();
    int count = writes.gather(gather);
    try {
      SSLEngineResult result = engine.wrap(gather, 0, count, out);
      writes.encrypted(result.bytesConsumed());
      return result;
    } finally {
      Arrays.fill(gather, 0, count, null);
    }
  }

  private void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(scheduledFlush);
    }
  }

  private void runScheduledFlush() {
    flushScheduled = false;
    flushOutbound();
  }

  private void onBatchWritten(Throwable error) {
    batchInFlight = false;
    if (error != null || closed || flushing) {
      return; // a failure closes the transport, which tells us; a flush in progress goes on
    }
    writes.completeEncrypted();
    updateWritability();
    flushOutbound();
  }

  private void onCloseNotifyWritten(Throwable error) {
    if (error != null || closed) {
      return;
    }
    closeNotifySent = true;
    if (flushing) {
      closeNotifyNeedsFollowUp = true;
    } else {
      afterCloseNotifySent();
    }
  }

  private void afterCloseNotifySent() {
    if (closed) {
      return;
    }
    if (closingReason != null || inboundDone) {
      transport.close();
    } else {
      transport.shutdownOutput(); // TLS 1.3 half-close: reading goes on
    }
  }

  private void closeIfBothDirectionsDone() {
    if (!closed && inboundDone && closeNotifySent) {
      transport.close();
    }
  }

  private void updateWritability() {
    if (closed) {
      return;
    }
    TransportConfig config = loop.config();
    long pending = pendingWriteBytes();
    if (writable && pending > config.writeHighWatermark()) {
      writable = false;
      fireWritability(false);
    } else if (!writable && pending <= config.writeLowWatermark()) {
      writable = true;
      fireWritability(true);
    }
  }

  private void fireWritability(boolean value) {
    if (!appActive) {
      return;
    }
    try {
      app.onWritabilityChanged(this, value);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
    }
  }

  // ---- closing ----

  /** Closes because of the application (a close, or an exception from its handler). */
  private void closeWith(CloseReason reason) {
    if (closed || closingReason != null) {
      return;
    }
    closingReason = reason;
    if (engine != null) {
      sendCloseMessages(); // close_notify, if the socket takes it now
    }
    transport.close();
  }

  private void failOnEngineError(SSLException e) {
    String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    fail(appActive ? Kind.PROTOCOL_ERROR : Kind.HANDSHAKE_FAILED, detail, e);
  }

  /** Closes because of a TLS failure, sending the alert the engine has queued, if any. */
  private void fail(Kind kind, String detail, Throwable cause) {
    if (closed || closingReason != null) {
      return;
    }
    closingReason = new CloseReason.TlsFailure(kind, detail, cause);
    LOG.log(System.Logger.Level.DEBUG, () -> "TLS connection " + this + " failed: " + detail);
    if (engine != null) {
      sendCloseMessages();
    }
    transport.close();
  }

  /** Best effort: wraps what the engine has left to say (an alert, close_notify) and writes it. */
  private void sendCloseMessages() {
    try {
      writes.failAll(closedException());
      engine.closeOutbound();
      ByteBuffer out = buffers.ciphertextOut();
      for (int i = 0; i < 4 && engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP; i++) {
        SSLEngineResult result = engine.wrap(NO_DATA, out);
        if (result.bytesProduced() == 0) {
          break;
        }
      }
      if (out.position() > 0) {
        transport.writeTransient(out.flip(), null);
      }
    } catch (SSLException | RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "no closing alert sent on " + this, e);
    }
  }

  private void onTransportClosed(CloseReason transportReason) {
    if (closed) {
      return;
    }
    closed = true;
    CloseReason reason = closingReason != null ? closingReason : transportReason;
    closeReason = reason;
    if (handshakeTimer != null) {
      handshakeTimer.cancel();
    }
    if (writes != null) {
      releaseHeld();
      writes.failAll(closedException());
    }
    if (appActive) {
      try {
        app.onClose(this, reason);
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "onClose handler failed for " + this, t);
      }
    } else if (app instanceof TlsHandshakeListener listener) {
      try {
        listener.onHandshakeFailed(this, reason);
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "onHandshakeFailed handler failed for " + this, t);
      }
    }
    if (ready != null && !ready.isDone()) {
      ready.completeExceptionally(new TlsHandshakeException(remoteAddressOrNull(), reason));
    }
  }

  private SocketAddress remoteAddressOrNull() {
    return transport == null ? null : transport.remoteAddress();
  }

  private ConnectionClosedException closedException() {
    CloseReason reason = closeReason != null ? closeReason : closingReason;
    return new ConnectionClosedException(
        "TLS connection "
            + (transport == null ? "" : transport.id() + " to " + transport.remoteAddress())
            + " is closed ("
            + (reason == null ? "closing" : reason.label())
            + ")",
        reason);
  }

  // ---- plumbing ----

  private void onLoop(Runnable action) {
    if (loop == null) {
      throw new IllegalStateException("the TLS connection is not active yet");
    }
    loop.runOnLoop(action);
  }

  @Override
  public String toString() {
    return "TlsConnection[" + (transport == null ? "connecting" : transport.toString()) + "]";
  }

  /** The transport's handler: ciphertext in, ciphertext drained, transport closed. */
  private final class TransportHandler implements ConnectionHandler {
    @Override
    public void onActive(Connection connection) {
      onTransportActive(connection);
    }

    @Override
    public void onRead(Connection connection, Chunk chunk) {
      chunk.release(); // unreachable: onReadBorrowed is overridden
      throw new IllegalStateException("TLS reads ciphertext borrowed, never as chunks");
    }

    @Override
    public void onReadBorrowed(Connection connection, BorrowedBytes bytes) {
      onCiphertext(bytes.buffer());
    }

    @Override
    public void onEndOfInput(Connection connection) {
      onTransportEndOfInput();
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      onTransportClosed(reason);
    }
  }
}
