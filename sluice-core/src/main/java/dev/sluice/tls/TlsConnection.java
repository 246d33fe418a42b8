package dev.sluice.tls;

import dev.sluice.internal.LoopInternals;
import dev.sluice.internal.MemoryCounters;
import dev.sluice.internal.ReadSlab;
import dev.sluice.internal.WriteEntry;
import dev.sluice.internal.WriteQueue;
import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionClosedException;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import dev.sluice.tls.openssl.OpenSslEngine;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
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
 * last byte has been handed to the socket, even if a later write is still stuck behind it.
 *
 * <p><b>Lifecycle.</b> {@link ConnectionHandler#onActive} runs when the handshake has finished. A
 * handshake that fails or times out never reaches the handler: the connection closes with a {@link
 * CloseReason.TlsFailure}, which a handler implementing {@link TlsHandshakeListener} hears. Closing
 * sends close_notify; receiving close_notify is the end of input ({@link
 * ConnectionHandler#onEndOfInput}, called once); bytes after it are a protocol error; the transport
 * closing without it is reported as {@link Kind#TRUNCATED}. With TLS 1.3 either side may shut down
 * its output and go on reading; with TLS 1.2 the JDK answers a close_notify with its own, so writes
 * after the peer's close_notify fail. A server refuses a TLS 1.2 client's renegotiation: it closes
 * with a {@link Kind#RENEGOTIATION_REFUSED}.
 *
 * <p>An idle TLS connection holds no buffer: only its {@link SSLEngine} and its queue's (empty)
 * head.
 */
public final class TlsConnection implements Connection {
  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");
  private static final ByteBuffer[] NO_DATA = new ByteBuffer[0];

  /** The content type of a TLS handshake record. */
  private static final byte HANDSHAKE_RECORD = 0x16;

  /** A TLS record's header: type, version (2 bytes), length (2 bytes, big-endian). */
  private static final int RECORD_HEADER = 5;

  private static final String RENEGOTIATION_REFUSED = "client-initiated renegotiation refused";

  private static final String REJECT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

  /**
   * Whether the JDK's engine refuses a renegotiation itself, with a fatal handshake_failure alert:
   * on unless the JVM was started with the property false. The JDK reads it once, at its first
   * server handshake, which in a proxy comes after this; in a JVM that did one before, the first
   * renegotiation shows the engine accepting and this turns off. A client that sees only the
   * close_notify of a quiet refusal may think it renegotiated (testssl.sh's check does).
   */
  private static volatile boolean engineRefusesRenegotiation;

  static {
    if (System.getProperty(REJECT_RENEGOTIATION) == null) {
      System.setProperty(REJECT_RENEGOTIATION, "true");
    }
    engineRefusesRenegotiation = Boolean.getBoolean(REJECT_RENEGOTIATION);
  }

  /** Ciphertext batches written in one go before the loop serves its other connections. */
  private static final int MAX_BATCHES_PER_FLUSH = 64;

  /** Creates the engine for a transport connection that just became active. */
  @FunctionalInterface
  interface EngineFactory {
    SSLEngine create(Connection transport) throws SSLException;
  }

  private enum Handshake {
    NOT_STARTED,
    RUNNING,
    /** The application is active. */
    FINISHED
  }

  private enum Inbound {
    OPEN,
    /** The engine has read close_notify; the application has not heard of it yet. */
    CLOSE_NOTIFY_RECEIVED,
    /** The application heard the end of input; any byte after it is a protocol error. */
    ENDED
  }

  private enum Outbound {
    OPEN,
    /** close_notify goes out once the queued writes are encrypted. */
    SHUTDOWN_REQUESTED,
    CLOSE_NOTIFY_QUEUED,
    CLOSE_NOTIFY_SENT
  }

  private enum Flush {
    IDLE,
    RUNNING,
    /** Asked for again while running: another pass follows. */
    RUNNING_AGAIN
  }

  private final EngineFactory engineFactory;
  private final Duration handshakeTimeout;
  private final CompletableFuture<TlsConnection> ready;
  private final TransportHandler transportHandler = new TransportHandler();
  private final WriteListener batchWritten = this::onBatchWritten;
  private final WriteListener closeNotifyWritten = this::onCloseNotifyWritten;
  private final Runnable scheduledFlush = this::runScheduledFlush;
  private ConnectionHandler app;

  private Connection transport;
  private EventLoop loop;
  private TlsLoopBuffers buffers;
  private MemoryCounters counters;
  private SSLEngine engine;
  private EventLoop.Timeout handshakeTimer;
  private WriteQueue queue;

  private Handshake handshake = Handshake.NOT_STARTED;
  private Inbound inbound = Inbound.OPEN;
  private Outbound outbound = Outbound.OPEN;
  private Flush flush = Flush.IDLE;
  private CloseReason refusal;
  private CloseReason closingReason;
  private volatile CloseReason closeReason;
  private boolean readingPaused;
  private boolean drainScheduled;
  private boolean flushScheduled;
  private byte[] heldCiphertext;
  private volatile Object attachment;

  // Application-data batches handed to the transport, and the one the socket has not taken whole.
  private long batchesSubmitted;
  private long batchesAcknowledged;
  private long inFlightBatch = -1;
  private long inFlightBatchEnd;

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

  /**
   * Makes the connection fail with {@code reason} as soon as its transport hands it over, without
   * starting the handshake: how a first stage that recognised something other than TLS (a plaintext
   * HTTP request) lets the application hear of the failed handshake.
   */
  void refuseOnStart(CloseReason reason) {
    this.refusal = reason;
  }

  /**
   * The transport closed while a first stage still had it, before TLS ever started: the application
   * hears of the failed handshake (once, like of every other).
   */
  void closedBeforeStart(Connection connection, CloseReason reason) {
    if (transport == null) {
      transport = connection;
      loop = connection.loop();
    }
    onTransportClosed(reason);
  }

  /** The transport's connect failed: the handshake never started. */
  void transportConnectFailed(Throwable error) {
    if (transport == null && ready != null) {
      ready.completeExceptionally(error);
    }
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
    return closeReason == null;
  }

  @Override
  public boolean isWritable() {
    return queue == null || queue.isWritable();
  }

  /** Plaintext queued and not yet encrypted, plus ciphertext not yet handed to the socket. */
  @Override
  public long pendingWriteBytes() {
    return (queue == null ? 0 : queue.queuedBytes()) + transport.pendingWriteBytes();
  }

  @Override
  public long lastActivityNanos() {
    return transport.lastActivityNanos();
  }

  @Override
  public long lastWriteNanos() {
    return transport.lastWriteNanos();
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

  /**
   * The TLS session: protocol, cipher suite, peer certificates...; null when TLS never started (the
   * connection was refused or closed before its first stage handed it over).
   */
  public SSLSession session() {
    return engine == null ? null : engine.getSession();
  }

  /** The protocol chosen by ALPN, or null when none was (or TLS never started). */
  public String applicationProtocol() {
    if (engine == null) {
      return null;
    }
    String protocol = engine.getApplicationProtocol();
    return protocol == null || protocol.isEmpty() ? null : protocol;
  }

  /** Ciphertext this connection holds between reads, in bytes (0 when idle). Loop thread only. */
  public int heldCiphertextBytes() {
    return heldCiphertext == null ? 0 : heldCiphertext.length;
  }

  private boolean closingOrClosed() {
    return closeReason != null || closingReason != null;
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

  /** Reads at most {@code bytes} of ciphertext at once. */
  @Override
  public void setMaxReadBytes(int bytes) {
    transport.setMaxReadBytes(bytes);
  }

  @Override
  public void switchHandler(ConnectionHandler next) {
    if (!loop.inLoop()) {
      throw new IllegalStateException("switchHandler must be called on " + loop);
    }
    app = next;
    if (!closingOrClosed()) {
      try {
        next.onActive(this);
      } catch (Throwable t) {
        closeWith(new CloseReason.Error(t));
      }
    }
  }

  @Override
  public void write(ByteBuffer buffer, WriteListener listener) {
    if (loop.inLoop()) {
      LoopInternals.lenders(loop).refuse(buffer);
      enqueueWrite(buffer, listener, false);
    } else {
      WriteEntry.submit(
          loop, listener, () -> enqueueWrite(buffer, listener, false), this::closedException);
    }
  }

  @Override
  public void writeTransient(ByteBuffer source, WriteListener listener) {
    WriteEntry.requireLoopForTransient(loop);
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
          if (closingOrClosed() || outbound != Outbound.OPEN) {
            return;
          }
          outbound = Outbound.SHUTDOWN_REQUESTED;
          flushOutbound();
        });
  }

  /** Sends close_notify (if the socket takes it at once) and closes; pending writes fail. */
  @Override
  public void close(CloseReason reason) {
    onLoop(
        () -> {
          if (flushScheduled) {
            runScheduledFlush(); // writes made before close() go out as they would on plain TCP
          }
          closeWith(reason);
        });
  }

  /** Closes the transport with a reset, without close_notify. */
  @Override
  public void reset() {
    onLoop(
        () -> {
          if (!closingOrClosed()) {
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
    counters = LoopInternals.counters(loop);
    TransportConfig config = loop.config();
    queue =
        new WriteQueue(
            loop,
            counters,
            config.writeLowWatermark(),
            config.writeHighWatermark(),
            this::onWritabilityChanged);
    if (refusal != null) {
      closingReason = refusal;
      transport.close();
      return;
    }
    try {
      engine = engineFactory.create(connection);
      engine.beginHandshake();
    } catch (SSLException | RuntimeException e) {
      fail(Kind.HANDSHAKE_FAILED, "cannot start the TLS handshake: " + e.getMessage(), e);
      return;
    }
    handshake = Handshake.RUNNING;
    if (!handshakeTimeout.isZero()) {
      handshakeTimer = loop.schedule(handshakeTimeout, this::onHandshakeTimeout);
    }
    flushOutbound(); // a client's ClientHello; nothing yet for a server
  }

  private void onHandshakeTimeout() {
    if (handshake != Handshake.FINISHED && !closingOrClosed()) {
      fail(
          Kind.HANDSHAKE_TIMEOUT,
          "no TLS handshake within " + handshakeTimeout.toMillis() + " ms",
          null);
    }
  }

  private void onHandshakeFinished() {
    if (handshake == Handshake.FINISHED || closingOrClosed()) {
      return;
    }
    handshake = Handshake.FINISHED;
    if (handshakeTimer != null) {
      handshakeTimer.cancel();
    }
    try {
      app.onActive(this);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
    }
    if (ready != null) {
      if (closingOrClosed()) {
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

  private void onCiphertext(ByteBuffer src) {
    if (closingOrClosed() || engine == null) {
      return;
    }
    if (inbound != Inbound.OPEN) {
      failAfterCloseNotify(src.remaining());
      return;
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

  private void failAfterCloseNotify(int bytes) {
    fail(Kind.PROTOCOL_ERROR, bytes + " B of data after close_notify", null);
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
      if (startsRenegotiation(src)) {
        deliver(slab, dst); // what came before it
        refuseRenegotiation(src, slab.prepareRead());
        return null;
      }
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
        // close_notify: deliver what came before it, then the end of input.
        inbound = Inbound.CLOSE_NOTIFY_RECEIVED;
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
    return closingOrClosed() ? null : dst;
  }

  /**
   * Whether the record at {@code src}'s position is a client's new handshake on an established TLS
   * 1.2 (or older) server connection: a renegotiation, which costs a full handshake on the loop and
   * escapes every rate limit. Refused here, before the engine sees it, whatever the JVM's
   * renegotiation properties say. Records start at the position: the engine unwraps whole records
   * and a partial one is kept until it is complete, so the record is judged once it is whole (its
   * first bytes alone would show the engine nothing to refuse). TLS 1.3 has no renegotiation (its
   * post-handshake messages, a KeyUpdate among them, travel in application-data records).
   */
  private boolean startsRenegotiation(ByteBuffer src) {
    int at = src.position();
    return handshake == Handshake.FINISHED
        && src.get(at) == HANDSHAKE_RECORD
        && src.remaining() >= RECORD_HEADER
        && src.remaining() - RECORD_HEADER
            >= ((src.get(at + 3) & 0xff) << 8 | (src.get(at + 4) & 0xff))
        && !engine.getUseClientMode()
        && !"TLSv1.3".equals(engine.getSession().getProtocol());
  }

  /**
   * Ends the connection on a renegotiation. The engine is shown the record only while it refuses
   * renegotiations itself, before computing anything (its fatal alert then goes out with the
   * close); otherwise the connection just closes.
   */
  private void refuseRenegotiation(ByteBuffer src, ByteBuffer scratch) {
    SSLException refusal = null;
    if (engineRefusesRenegotiation) {
      try {
        engine.unwrap(src, scratch);
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
          task.run(); // fails at once when the engine refuses
        }
        ByteBuffer answer = buffers.ciphertextOut();
        int before = answer.position();
        engine.wrap(NO_DATA, answer); // surfaces the refusal
        boolean answered = answer.position() > before;
        answer.position(before); // what it wrapped is dropped, never sent
        if (answered) {
          // It answered the hello (the JDK read the property before it was set): never ask it
          // again. A record that showed it nothing to answer (a ClientHello's first fragment)
          // proves nothing, and the connection just closes.
          engineRefusesRenegotiation = false;
          LOG.log(
              System.Logger.Level.WARNING,
              "the JDK accepts client renegotiations in this JVM ("
                  + REJECT_RENEGOTIATION
                  + " was read before Sluice set it): they are refused with a close_notify; start"
                  + " the JVM with -D"
                  + REJECT_RENEGOTIATION
                  + "=true for an alert");
        }
      } catch (SSLException e) {
        refusal = e; // the alert is queued in the engine: sendCloseMessages writes it
      }
    }
    fail(Kind.RENEGOTIATION_REFUSED, RENEGOTIATION_REFUSED, refusal);
  }

  /** Lends the last plaintext to the application, then reports close_notify if it came. */
  private void finishRead(ReadSlab slab, ByteBuffer dst) {
    if (dst == null) {
      return;
    }
    deliver(slab, dst);
    if (inbound == Inbound.CLOSE_NOTIFY_RECEIVED && !closingOrClosed()) {
      inbound = Inbound.ENDED;
      onCloseNotifyReceived();
    }
  }

  private boolean mayRead() {
    return !closingOrClosed()
        && inbound == Inbound.OPEN
        && !(handshake == Handshake.FINISHED && readingPaused);
  }

  /** Handles what the engine wants after a step; false when the connection is closing. */
  private boolean afterEngineStep(HandshakeStatus status) {
    if (status == HandshakeStatus.NEED_TASK) {
      runDelegatedTasks();
    }
    boolean renegotiated = status == HandshakeStatus.FINISHED && handshake == Handshake.FINISHED;
    if (status == HandshakeStatus.FINISHED) {
      onHandshakeFinished();
    }
    // A TLS 1.2 renegotiation held application writes back; they may go on now.
    if (!closingOrClosed()
        && (renegotiated || engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP)) {
      flushOutbound();
    }
    return !closingOrClosed();
  }

  /** Lends the plaintext decrypted so far to the application. */
  private void deliver(ReadSlab slab, ByteBuffer dst) {
    int length = dst.position();
    if (length == 0 || closingOrClosed()) {
      return;
    }
    BorrowedBytes bytes = slab.borrow(length);
    try {
      app.onRead(this, bytes);
    } catch (Throwable t) {
      slab.endBorrow();
      closeWith(new CloseReason.Error(t));
      return;
    }
    slab.endBorrow();
  }

  /**
   * Keeps what is left of {@code src} (after {@code prefix[from..]}, a kept partial record) at
   * exact size: a trailing partial record, or the rest of a read the application paused in. Bytes
   * behind close_notify are a protocol error.
   */
  private void keepRemainder(ByteBuffer src, byte[] prefix, int from) {
    int prefixLength = prefix == null ? 0 : prefix.length - from;
    int length = prefixLength + src.remaining();
    if (length == 0 || closingOrClosed()) {
      return;
    }
    if (inbound != Inbound.OPEN) {
      failAfterCloseNotify(length);
      return;
    }
    boolean paused = handshake == Handshake.FINISHED && readingPaused;
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
    if (closingOrClosed() || readingPaused) {
      return;
    }
    byte[] held = releaseHeld();
    if (held != null) {
      ByteBuffer src = ByteBuffer.wrap(held);
      decrypt(src);
      keepRemainder(src, null, 0);
    }
    if (!closingOrClosed() && !readingPaused) {
      transport.resumeReading();
    }
  }

  private void onCloseNotifyReceived() {
    if (handshake != Handshake.FINISHED) {
      fail(Kind.HANDSHAKE_FAILED, "the peer closed the connection during the handshake", null);
      return;
    }
    try {
      app.onEndOfInput(this);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
      return;
    }
    flushOutbound(); // a TLS 1.2 engine answers with close_notify, and fails what is still queued
    closeIfBothDirectionsDone();
  }

  private ConnectionClosedException outputClosedByPeer() {
    return new ConnectionClosedException(
        "the peer closed the TLS session and the protocol ("
            + engine.getSession().getProtocol()
            + ") has no half-close: output closed too",
        null);
  }

  private void onTransportEndOfInput() {
    if (closingOrClosed() || inbound != Inbound.OPEN) {
      return; // the FIN that follows close_notify
    }
    String detail;
    Kind kind;
    if (handshake != Handshake.FINISHED) {
      kind = Kind.HANDSHAKE_FAILED;
      detail = "the peer closed the connection during the TLS handshake";
    } else if (heldCiphertext != null) {
      kind = Kind.TRUNCATED;
      detail =
          "the peer closed the connection in the middle of a TLS record ("
              + heldCiphertext.length
              + " B of it received)";
    } else {
      kind = Kind.TRUNCATED;
      detail = "the peer closed the connection without close_notify";
    }
    SSLException cause = null;
    try {
      if (engine != null) {
        engine.closeInbound();
      }
    } catch (SSLException e) {
      cause = e;
    }
    fail(kind, detail, cause);
  }

  // ---- writing ----

  private void enqueueWrite(ByteBuffer buffer, WriteListener listener, boolean transientSource) {
    if (closingOrClosed()) {
      loop.completeLater(listener, closedException());
      return;
    }
    if (outbound != Outbound.OPEN || engine == null || engine.isOutboundDone()) {
      loop.completeLater(
          listener, new ConnectionClosedException("TLS output already shut down", null));
      return;
    }
    if (!buffer.hasRemaining() && queue.isEmpty()) {
      loop.completeLater(listener, null);
      return;
    }
    WriteQueue.Entry entry = queue.add(buffer, listener);
    if (handshake == Handshake.FINISHED) {
      if (transientSource) {
        flushOutbound(); // the source dies with this call: send what the socket takes now
      } else {
        // Encrypt when this turn of the loop ends, so writes made together share records (a
        // record per small write costs a cipher pass, 22 B and a syscall each).
        scheduleFlush();
      }
    }
    if (transientSource && !closingOrClosed()) {
      queue.copyRest(entry);
    }
    updateWritability();
  }

  private boolean batchInFlight() {
    return inFlightBatch >= 0;
  }

  /**
   * Encrypts and writes what the engine and the queue have to send: handshake messages and alerts
   * always, application data only while no earlier batch is still waiting for the socket. Nothing
   * here runs application code until the encrypting is done.
   */
  private void flushOutbound() {
    if (closeReason != null || engine == null) {
      return;
    }
    if (flush != Flush.IDLE) {
      flush = Flush.RUNNING_AGAIN;
      return;
    }
    boolean handshakeFinished = false;
    try {
      int batches = 0;
      do {
        flush = Flush.RUNNING;
        while (closeReason == null) {
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
            batches++;
            writeBatch(out);
          } else if ((produced & PRODUCED_CLOSE_NOTIFY) != 0) {
            transport.writeTransient(out, closeNotifyWritten);
          } else {
            transport.writeTransient(out, null);
          }
          if (batches >= MAX_BATCHES_PER_FLUSH && !batchInFlight()) {
            scheduleFlush(); // let the loop serve its other connections
            break;
          }
        }
      } while (flush == Flush.RUNNING_AGAIN && closeReason == null);
    } catch (SSLException e) {
      flush = Flush.IDLE;
      failOnEngineError(e);
      return;
    } finally {
      flush = Flush.IDLE;
    }
    if (closeReason != null) {
      return;
    }
    if (handshakeFinished) {
      onHandshakeFinished();
    }
    updateWritability();
  }

  /**
   * Hands one batch of application records to the transport. The writes whose last byte it holds
   * complete once the socket has it: at once when the socket takes it whole, else when it drains.
   */
  private void writeBatch(ByteBuffer ciphertext) {
    long end = queue.takenOffset();
    long pendingBefore = transport.pendingWriteBytes();
    batchesSubmitted++;
    transport.writeTransient(ciphertext, batchWritten);
    if (transport.pendingWriteBytes() == pendingBefore) {
      queue.completeThrough(end);
    } else {
      inFlightBatch = batchesSubmitted;
      inFlightBatchEnd = end;
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
      if (handshake != Handshake.FINISHED
          || outbound.compareTo(Outbound.CLOSE_NOTIFY_QUEUED) >= 0) {
        return flags;
      }
      if (engine.isOutboundDone()) {
        // The engine answered the peer's close_notify with its own (TLS 1.2, no half-close): what
        // is still queued can never go, and its writers must hear so rather than wait for ever.
        queue.failAll(this::outputClosedByPeer);
        return flags;
      }
      if (queue.queuedBytes() > 0) {
        if (batchInFlight()
            || records >= TlsLoopBuffers.RECORDS_PER_WRITE
            || out.remaining() < packetSize) {
          return flags;
        }
        SSLEngineResult result = wrapApplicationData(out);
        if (result.getStatus() == Status.CLOSED) {
          queue.failAll(() -> new ConnectionClosedException("TLS output closed", null));
          return flags;
        }
        if (result.getStatus() == Status.BUFFER_OVERFLOW) {
          return flags;
        }
        records++;
        flags |= PRODUCED_APP_DATA;
        continue;
      }
      if (outbound == Outbound.SHUTDOWN_REQUESTED || closingReason != null) {
        if ((flags & PRODUCED_APP_DATA) != 0) {
          return flags; // close_notify goes in a batch of its own, which has its own listener
        }
        outbound = Outbound.CLOSE_NOTIFY_QUEUED;
        engine.closeOutbound(); // the next NEED_WRAP produces close_notify
        continue;
      }
      return flags;
    }
  }

  /** Encrypts one record from the head of the queue, gathering small buffers together. */
  private SSLEngineResult wrapApplicationData(ByteBuffer out) throws SSLException {
    ByteBuffer[] gather = buffers.gather();
    int count = queue.gather(gather, false);
    try {
      SSLEngineResult result = engine.wrap(gather, 0, count, out);
      queue.taken(result.bytesConsumed());
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
    batchesAcknowledged++;
    if (error != null || closeReason != null) {
      return; // a failure closes the transport, which tells us
    }
    if (batchesAcknowledged == inFlightBatch) {
      inFlightBatch = -1;
      queue.completeThrough(inFlightBatchEnd);
      flushOutbound();
    }
  }

  private void onCloseNotifyWritten(Throwable error) {
    if (error != null || closeReason != null) {
      return;
    }
    outbound = Outbound.CLOSE_NOTIFY_SENT;
    if (closingReason != null || inbound != Inbound.OPEN) {
      transport.close();
    } else {
      transport.shutdownOutput(); // TLS 1.3 half-close: reading goes on
    }
  }

  private void closeIfBothDirectionsDone() {
    if (closeReason == null && inbound == Inbound.ENDED && outbound == Outbound.CLOSE_NOTIFY_SENT) {
      transport.close();
    }
  }

  private void updateWritability() {
    if (closeReason == null) {
      queue.updateWritability(queue.queuedBytes() + transport.pendingWriteBytes());
    }
  }

  private void onWritabilityChanged(boolean writable) {
    if (handshake != Handshake.FINISHED || closingOrClosed()) {
      return;
    }
    try {
      app.onWritabilityChanged(this, writable);
    } catch (Throwable t) {
      closeWith(new CloseReason.Error(t));
    }
  }

  // ---- closing ----

  /** Closes because of the application (a close, or an exception from its handler). */
  private void closeWith(CloseReason reason) {
    if (closingOrClosed()) {
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
    fail(handshake == Handshake.FINISHED ? Kind.PROTOCOL_ERROR : Kind.HANDSHAKE_FAILED, detail, e);
  }

  /** Closes because of a TLS failure, sending the alert the engine has queued, if any. */
  private void fail(Kind kind, String detail, Throwable cause) {
    if (closingOrClosed()) {
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
      queue.failAll(this::closedException);
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
    if (closeReason != null) {
      return;
    }
    CloseReason reason = closingReason != null ? closingReason : transportReason;
    closeReason = reason; // one volatile write: closed, and why, become visible together
    if (handshakeTimer != null) {
      handshakeTimer.cancel();
    }
    if (engine instanceof OpenSslEngine openssl) {
      openssl.free(); // its native SSL: once, here, whatever ended the connection
    }
    if (queue != null) {
      releaseHeld();
      queue.failAll(this::closedException);
    }
    if (handshake == Handshake.FINISHED) {
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
    return ConnectionClosedException.closed(
        "TLS connection" + (transport == null ? "" : " " + transport.id()),
        remoteAddressOrNull(),
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
    public void onRead(Connection connection, BorrowedBytes bytes) {
      onCiphertext(bytes.buffer());
    }

    @Override
    public boolean mayRead(Connection connection) {
      if (handshake != Handshake.FINISHED || app.mayRead(TlsConnection.this)) {
        return true;
      }
      readingPaused = true; // so that the application's resumeReading resumes the transport
      return false;
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
