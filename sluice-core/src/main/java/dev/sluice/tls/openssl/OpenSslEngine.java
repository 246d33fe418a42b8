package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.ByteArrayInputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;

/**
 * An {@link SSLEngine} over one OpenSSL {@code SSL}, so that {@code TlsConnection}'s record loop
 * drives either engine the same way. Like the JDK's engine it unwraps whole records only (a partial
 * one is {@link Status#BUFFER_UNDERFLOW}, left for the caller to keep) and wraps at most one record
 * of plaintext per call. Ciphertext moves through a {@link CallbackBio}: OpenSSL reads the record
 * from the caller's buffer and writes records into the caller's buffer; what it writes outside a
 * wrap (a handshake flight answering the record just unwrapped, an alert) waits in an exact-size
 * array until the next wrap.
 *
 * <p>One thread at a time (the connection's loop) calls it. {@link #free} releases the SSL, once;
 * after it every call fails. The session ({@link #getSession}) is a copy made when the handshake
 * finished and stays readable after.
 */
@SuppressWarnings("restricted") // native calls are this package's job
public final class OpenSslEngine extends SSLEngine implements CallbackBio.Io {
  private static final int RECORD_HEADER = 5;
  private static final long X509_V_ERR_HOSTNAME_MISMATCH = 62;

  /** BoringSSL's verify result when no certificate was verified (none was sent). */
  private static final long X509_V_ERR_INVALID_CALL = 65;

  private static final int MAX_PLAINTEXT = 16 * 1024;

  /** The largest record body OpenSSL accepts (plaintext, padding, MAC, compression overhead). */
  private static final int MAX_RECORD_BODY = MAX_PLAINTEXT + 2048;

  private static final byte CHANGE_CIPHER_SPEC = 20;
  private static final byte APPLICATION_DATA = 23;
  private static final byte HANDSHAKE = 22;

  private static final AtomicLong LIVE = new AtomicLong();
  private static final Cleaner CLEANER = Cleaner.create();

  /** Plaintext staging for heap buffers, per thread (loops only). */
  private static final ThreadLocal<MemorySegment> STAGING =
      ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(MAX_PLAINTEXT, 64));

  private final Owner owner;
  private final boolean client;
  private final NativeSsl handle;
  private final Cleaner.Cleanable cleanable;
  private List<X509Certificate> localChain;
  private String requestedServerName;
  private boolean nameChosen;
  private String sessionKey;
  private String refusal;
  private int refusalAlert;
  private long resumedSessionMillis = -1;

  private boolean started;
  private boolean handshakeDone;
  private boolean fatal;
  private boolean inboundDone;
  private boolean closeRequested;
  private boolean outboundDone;
  private volatile OpenSslSession session;
  private volatile String applicationProtocol = "";

  // The buffers of the call running now.
  private MemorySegment input;
  private long inputRead;
  private ByteBuffer output;
  private byte[] pending;
  private int pendingStart;

  /** What created an engine: kept reachable while the engine is (its SSL_CTX, its callbacks). */
  interface Owner {}

  OpenSslEngine(
      Owner owner,
      MemorySegment context,
      boolean client,
      String peerHost,
      int peerPort,
      List<X509Certificate> localChain) {
    super(peerHost, peerPort);
    this.owner = owner;
    this.client = client;
    this.localChain = localChain;
    this.session = OpenSslSession.handshaking(peerHost, peerPort);
    MemorySegment ssl;
    try {
      ssl = (MemorySegment) OpenSsl.Lib.SSL_NEW.invokeExact(context);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
    if (ssl.equals(MemorySegment.NULL)) {
      throw new IllegalStateException(OpenSsl.describe("SSL_new failed"));
    }
    LIVE.incrementAndGet();
    this.handle = new NativeSsl(ssl);
    this.cleanable = CLEANER.register(this, handle);
    try {
      MemorySegment bio = CallbackBio.newBio();
      OpenSsl.Lib.SSL_SET_BIO.invokeExact(ssl, bio, bio);
      if (client) {
        OpenSsl.Lib.SSL_SET_CONNECT_STATE.invokeExact(ssl);
      } else {
        OpenSsl.Lib.SSL_SET_ACCEPT_STATE.invokeExact(ssl);
      }
    } catch (Throwable e) {
      free();
      throw OpenSsl.rethrow(e);
    }
  }

  /** SSL objects made and not yet freed, in this process. */
  public static long liveCount() {
    return LIVE.get();
  }

  /** The SSL, for the context's setup and callbacks; NULL once freed. */
  MemorySegment ssl() {
    return handle.ssl;
  }

  Owner owner() {
    return owner;
  }

  /** The server's callback chose the certificate for the client's name. */
  void serverNameChosen(String name, List<X509Certificate> chain) {
    this.requestedServerName = name;
    this.localChain = chain;
    this.nameChosen = true;
  }

  /**
   * Whether a ClientHello of this connection already chose the certificate: the callback runs again
   * on the hello that answers a HelloRetryRequest.
   */
  boolean serverNameWasChosen() {
    return nameChosen;
  }

  /** The name the client asked for (SNI), or null. */
  String requestedServerName() {
    return requestedServerName;
  }

  /** The client's session cache key: the server this engine connects to. */
  void sessionKey(String key) {
    this.sessionKey = key;
  }

  String sessionKey() {
    return sessionKey;
  }

  /** The name this client sends (SNI). */
  void serverNameSent(String name) {
    this.requestedServerName = name;
  }

  /** Releases the SSL now (once: later calls do nothing). */
  public void free() {
    cleanable.clean();
  }

  /** Whether {@link #free} ran. */
  public boolean isFreed() {
    return handle.ssl.equals(MemorySegment.NULL);
  }

  /** Frees an SSL once, by the connection's close or, if that never came, by the cleaner. */
  private static final class NativeSsl implements Runnable {
    private MemorySegment ssl;

    NativeSsl(MemorySegment ssl) {
      this.ssl = ssl;
    }

    @Override
    public void run() {
      MemorySegment s = ssl;
      ssl = MemorySegment.NULL;
      if (!s.equals(MemorySegment.NULL)) {
        try {
          OpenSsl.Lib.SSL_FREE.invokeExact(s);
        } catch (Throwable e) {
          throw OpenSsl.rethrow(e);
        }
        LIVE.decrementAndGet();
      }
    }
  }

  private MemorySegment live() throws SSLException {
    MemorySegment ssl = handle.ssl;
    if (ssl.equals(MemorySegment.NULL)) {
      throw new SSLException("the TLS engine was released");
    }
    return ssl;
  }

  // ---- the BIO's side ----

  @Override
  public int readCiphertext(MemorySegment into, int length) {
    if (input == null) {
      return 0;
    }
    int n = (int) Math.min(length, input.byteSize() - inputRead);
    if (n > 0) {
      MemorySegment.copy(input, inputRead, into, 0, n);
      inputRead += n;
    }
    return n;
  }

  @Override
  public void writeCiphertext(MemorySegment from, int length) {
    if (output != null && pendingBytes() == 0 && output.remaining() >= length) {
      MemorySegment.copy(from, 0, MemorySegment.ofBuffer(output), 0, length);
      output.position(output.position() + length);
      return;
    }
    int kept = pendingBytes();
    byte[] grown = new byte[kept + length];
    if (kept > 0) {
      System.arraycopy(pending, pendingStart, grown, 0, kept);
    }
    MemorySegment.copy(from, 0, MemorySegment.ofArray(grown), kept, length);
    pending = grown;
    pendingStart = 0;
  }

  private int pendingBytes() {
    return pending == null ? 0 : pending.length - pendingStart;
  }

  private int drainPending(ByteBuffer dst) {
    int n = Math.min(pendingBytes(), dst.remaining());
    if (n > 0) {
      dst.put(pending, pendingStart, n);
      pendingStart += n;
      if (pendingStart == pending.length) {
        pending = null;
        pendingStart = 0;
      }
    }
    return n;
  }

  // ---- SSLEngine ----

  @Override
  public void beginHandshake() throws SSLException {
    live();
  }

  @Override
  public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst)
      throws SSLException {
    MemorySegment ssl = live();
    int produced = drainPending(dst);
    if (pendingBytes() > 0) {
      return result(Status.OK, 0, produced, null);
    }
    if (fatal || outboundDone) {
      outboundDone = true;
      return result(Status.CLOSED, 0, produced, null);
    }
    if (!handshakeDone) {
      if (closeRequested) {
        outboundDone = true;
        return result(Status.CLOSED, 0, produced, null);
      }
      HandshakeStatus step = handshakeStep(ssl);
      produced += drainPending(dst);
      return result(Status.OK, 0, produced, step == HandshakeStatus.FINISHED ? step : null);
    }
    if (closeRequested) {
      int before = dst.position();
      call(ssl, null, dst, () -> (int) OpenSsl.Lib.SSL_SHUTDOWN.invokeExact(ssl));
      OpenSsl.clearErrors(); // a failed shutdown only means close_notify could not go
      outboundDone = true;
      return result(Status.CLOSED, 0, produced + dst.position() - before, null);
    }
    int available = 0;
    for (int i = offset; i < offset + length && available < MAX_PLAINTEXT; i++) {
      available += srcs[i].remaining();
    }
    int n = Math.min(available, MAX_PLAINTEXT);
    if (n == 0) {
      return result(Status.OK, 0, produced, null);
    }
    if (dst.remaining() < OpenSslSession.PACKET_BUFFER_SIZE && produced == 0) {
      return result(Status.BUFFER_OVERFLOW, 0, 0, null);
    }
    MemorySegment plaintext = plaintextSource(srcs, offset, length, n);
    int before = dst.position();
    int written =
        call(ssl, null, dst, () -> (int) OpenSsl.Lib.SSL_WRITE.invokeExact(ssl, plaintext, n));
    if (written <= 0) {
      int error = sslError(ssl, written);
      fatal = true;
      throw OpenSsl.failure("SSL_write failed (error " + error + ")", false);
    }
    consume(srcs, offset, length, written);
    return result(Status.OK, written, produced + dst.position() - before, null);
  }

  /** The next {@code n} plaintext bytes in native memory: the buffer itself when it can be. */
  private static MemorySegment plaintextSource(ByteBuffer[] srcs, int offset, int length, int n) {
    for (int i = offset; i < offset + length; i++) {
      ByteBuffer src = srcs[i];
      if (!src.hasRemaining()) {
        continue;
      }
      if (src.isDirect() && src.remaining() >= n) {
        return MemorySegment.ofBuffer(src).asSlice(0, n);
      }
      break;
    }
    MemorySegment staging = STAGING.get();
    int copied = 0;
    for (int i = offset; i < offset + length && copied < n; i++) {
      ByteBuffer src = srcs[i];
      int take = Math.min(src.remaining(), n - copied);
      if (take > 0) {
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, staging, copied, take);
        copied += take;
      }
    }
    return staging.asSlice(0, n);
  }

  private static void consume(ByteBuffer[] srcs, int offset, int length, int n) {
    int left = n;
    for (int i = offset; i < offset + length && left > 0; i++) {
      int take = Math.min(srcs[i].remaining(), left);
      srcs[i].position(srcs[i].position() + take);
      left -= take;
    }
  }

  @Override
  public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length)
      throws SSLException {
    MemorySegment ssl = live();
    if (inboundDone) {
      return result(Status.CLOSED, 0, 0, null);
    }
    int start = src.position();
    if (src.remaining() < RECORD_HEADER) {
      return result(Status.BUFFER_UNDERFLOW, 0, 0, null);
    }
    byte type = src.get(start);
    int body = ((src.get(start + 3) & 0xff) << 8) | (src.get(start + 4) & 0xff);
    boolean plausible =
        type >= CHANGE_CIPHER_SPEC && type <= APPLICATION_DATA && src.get(start + 1) == 3;
    // Not a record, or too long to be one: show OpenSSL the header alone, so it fails now (with
    // its alert) rather than after we waited for a body that will never be valid.
    boolean headerOnly = !plausible || body > MAX_RECORD_BODY;
    int record = headerOnly ? RECORD_HEADER : RECORD_HEADER + body;
    if (src.remaining() < record) {
      return result(Status.BUFFER_UNDERFLOW, 0, 0, null);
    }
    ByteBuffer dst = firstWithRoom(dsts, offset, length);
    if (handshakeDone
        && type == APPLICATION_DATA
        && (dst == null || dst.remaining() < Math.min(body, MAX_PLAINTEXT))) {
      return result(Status.BUFFER_OVERFLOW, 0, 0, null);
    }
    if (plausible && body > MAX_RECORD_BODY) {
      refusal = "a TLS record of " + body + " B is too big (at most " + MAX_RECORD_BODY + " B)";
    }
    input = MemorySegment.ofBuffer(src).asSlice(0, record);
    inputRead = 0;
    try {
      if (!handshakeDone) {
        HandshakeStatus step = handshakeStep(ssl);
        notARecord(headerOnly);
        return result(
            Status.OK, (int) inputRead, 0, step == HandshakeStatus.FINISHED ? step : null);
      }
      if (!client && type == HANDSHAKE && !"TLSv1.3".equals(session.getProtocol())) {
        // A TLS 1.2 client renegotiating: OpenSSL (SSL_OP_NO_RENEGOTIATION) answers it with a
        // no_renegotiation alert; the connection ends here.
        read(ssl, STAGING.get(), MAX_PLAINTEXT);
        OpenSsl.clearErrors();
        fatal = true;
        throw new SSLException("client-initiated renegotiation refused");
      }
      SSLEngineResult plaintext = readPlaintext(ssl, dst);
      notARecord(headerOnly);
      return plaintext;
    } finally {
      src.position(start + (int) inputRead);
      input = null;
    }
  }

  /**
   * Fails a header-only feed OpenSSL did not fail itself: it asks for more (an SSLv2-style hello,
   * an unknown record type with a plausible length), and feeding it more would frame records
   * differently from this engine, so that a crafted header could stall the connection.
   */
  private void notARecord(boolean headerOnly) throws SSLException {
    if (headerOnly) {
      fatal = true;
      OpenSsl.clearErrors();
      throw new SSLException(refusal != null ? refusal : "not a TLS record");
    }
  }

  private static ByteBuffer firstWithRoom(ByteBuffer[] dsts, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      if (dsts[i].hasRemaining()) {
        return dsts[i];
      }
    }
    return null;
  }

  private SSLEngineResult readPlaintext(MemorySegment ssl, ByteBuffer dst) throws SSLException {
    boolean direct = dst != null && dst.isDirect();
    int room = dst == null ? 0 : Math.min(dst.remaining(), MAX_PLAINTEXT);
    MemorySegment target = direct ? MemorySegment.ofBuffer(dst) : STAGING.get();
    int n = read(ssl, target, room);
    if (n > 0) {
      if (direct) {
        dst.position(dst.position() + n);
      } else {
        dst.put(target.asSlice(0, n).asByteBuffer());
      }
      return result(Status.OK, (int) inputRead, n, null);
    }
    int error = sslError(ssl, n);
    switch (error) {
      case OpenSsl.SSL_ERROR_WANT_READ -> {
        return result(Status.OK, (int) inputRead, 0, null); // a ticket, a key update, a warning
      }
      case OpenSsl.SSL_ERROR_ZERO_RETURN -> {
        inboundDone = true;
        if (!"TLSv1.3".equals(session.getProtocol())) {
          closeRequested = true; // TLS 1.2 has no half-close: answer with close_notify
        }
        return result(Status.CLOSED, (int) inputRead, 0, null);
      }
      default -> {
        fatal = true;
        throw OpenSsl.failure(
            refusal != null ? refusal : "cannot decrypt a TLS record (error " + error + ")", false);
      }
    }
  }

  private int read(MemorySegment ssl, MemorySegment into, int room) {
    return call(ssl, input, null, () -> (int) OpenSsl.Lib.SSL_READ.invokeExact(ssl, into, room));
  }

  /** Runs the handshake as far as the ciphertext at hand allows. */
  private HandshakeStatus handshakeStep(MemorySegment ssl) throws SSLException {
    started = true;
    int r = call(ssl, input, null, () -> (int) OpenSsl.Lib.SSL_DO_HANDSHAKE.invokeExact(ssl));
    if (resumedSessionMillis < 0) {
      resumedSessionMillis = resumedSessionMillis(ssl);
    }
    if (r == 1) {
      OpenSslSession made;
      try {
        made = snapshot(ssl); // before handshakeDone: a failure here fails the handshake
      } catch (SSLException e) {
        fatal = true;
        throw e;
      }
      handshakeDone = true;
      session = made;
      return HandshakeStatus.FINISHED;
    }
    int error = sslError(ssl, r);
    if (error == OpenSsl.SSL_ERROR_WANT_READ) {
      return getHandshakeStatus();
    }
    fatal = true;
    String why = refusal != null ? refusal : "TLS handshake failed";
    throw OpenSsl.failure(why + verifyError(ssl), true);
  }

  /**
   * When the session being resumed was made (ms, whole seconds), or -1 while not known to be a
   * resumption. Read as soon as the hello settles it: a TLS 1.3 server stamps the session with the
   * time again when it issues the next ticket, at the end of the handshake.
   */
  private static long resumedSessionMillis(MemorySegment ssl) {
    try {
      if ((int) OpenSsl.Lib.SSL_SESSION_REUSED.invokeExact(ssl) != 1) {
        return -1;
      }
      MemorySegment session = (MemorySegment) OpenSsl.Lib.SSL_GET_SESSION.invokeExact(ssl);
      if (session.equals(MemorySegment.NULL)) {
        return -1;
      }
      return 1000 * (long) OpenSsl.Lib.SSL_SESSION_GET_TIME.invokeExact(session);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /** A callback refused the handshake: why, said before OpenSSL's own errors. */
  void refuse(String why) {
    this.refusal = why;
  }

  /**
   * BoringSSL's certificate callback refused the handshake with {@code alert}, which only the
   * servername callback after it can send (the former can only fail with handshake_failure).
   */
  void refuseWithAlert(int alert) {
    this.refusalAlert = alert;
  }

  /** The alert {@link #refuseWithAlert} left for the servername callback, or 0. */
  int refusalAlert() {
    return refusalAlert;
  }

  private String verifyError(MemorySegment ssl) {
    try {
      long result = (long) OpenSsl.Lib.SSL_GET_VERIFY_RESULT.invokeExact(ssl);
      if (result == 0 || (OpenSsl.BORING && result == X509_V_ERR_INVALID_CALL)) {
        return "";
      }
      String text =
          OpenSsl.string(
              (MemorySegment) OpenSsl.Lib.X509_VERIFY_CERT_ERROR_STRING.invokeExact(result));
      if (result == X509_V_ERR_HOSTNAME_MISMATCH && requestedServerName != null) {
        text += ": the certificate is not for " + requestedServerName;
      }
      return " (the " + (client ? "server" : "client") + "'s certificate: " + text + ")";
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  @FunctionalInterface
  private interface NativeCall {
    int run() throws Throwable;
  }

  /** Runs one OpenSSL call with this engine's BIO reading {@code in} and writing {@code out}. */
  private int call(MemorySegment ssl, MemorySegment in, ByteBuffer out, NativeCall body) {
    CallbackBio.Io[] slot = CallbackBio.enter(this);
    input = in;
    output = out;
    try {
      OpenSsl.clearErrors();
      return body.run();
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    } finally {
      output = null;
      slot[0] = null;
    }
  }

  private static int sslError(MemorySegment ssl, int result) {
    try {
      return (int) OpenSsl.Lib.SSL_GET_ERROR.invokeExact(ssl, result);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private SSLEngineResult result(Status status, int consumed, int produced, HandshakeStatus hs) {
    return new SSLEngineResult(status, hs != null ? hs : getHandshakeStatus(), consumed, produced);
  }

  @Override
  public HandshakeStatus getHandshakeStatus() {
    if (isFreed()) {
      return HandshakeStatus.NOT_HANDSHAKING;
    }
    if (pendingBytes() > 0) {
      return HandshakeStatus.NEED_WRAP;
    }
    if (fatal || outboundDone) {
      return HandshakeStatus.NOT_HANDSHAKING;
    }
    if (!handshakeDone) {
      if (closeRequested) {
        return HandshakeStatus.NOT_HANDSHAKING;
      }
      return client && !started ? HandshakeStatus.NEED_WRAP : HandshakeStatus.NEED_UNWRAP;
    }
    return closeRequested ? HandshakeStatus.NEED_WRAP : HandshakeStatus.NOT_HANDSHAKING;
  }

  @Override
  public Runnable getDelegatedTask() {
    return null;
  }

  @Override
  public void closeInbound() {
    inboundDone = true;
  }

  @Override
  public boolean isInboundDone() {
    return inboundDone;
  }

  @Override
  public void closeOutbound() {
    closeRequested = true;
  }

  /** True once no more application data can go out (close_notify asked for, or a fatal error). */
  @Override
  public boolean isOutboundDone() {
    return (outboundDone || closeRequested || fatal) && pendingBytes() == 0;
  }

  @Override
  public SSLSession getSession() {
    return session;
  }

  @Override
  public SSLSession getHandshakeSession() {
    return handshakeDone ? null : session;
  }

  @Override
  public String getApplicationProtocol() {
    return handshakeDone ? applicationProtocol : null;
  }

  @Override
  public String getHandshakeApplicationProtocol() {
    return null;
  }

  // ---- the session, copied out at the end of the handshake ----

  /**
   * The finished handshake's session, as Java sees it.
   *
   * @throws SSLHandshakeException when a certificate cannot be read into Java (one OpenSSL took but
   *     the JDK's CertificateFactory refuses, or that OpenSSL cannot encode)
   */
  private OpenSslSession snapshot(MemorySegment ssl) throws SSLHandshakeException {
    try (Arena arena = Arena.ofConfined()) {
      String protocol =
          OpenSsl.string((MemorySegment) OpenSsl.Lib.SSL_GET_VERSION.invokeExact(ssl));
      MemorySegment cipher = (MemorySegment) OpenSsl.Lib.SSL_GET_CURRENT_CIPHER.invokeExact(ssl);
      String suite =
          OpenSsl.string((MemorySegment) OpenSsl.Lib.SSL_CIPHER_STANDARD_NAME.invokeExact(cipher));
      MemorySegment data = arena.allocate(ADDRESS);
      MemorySegment size = arena.allocate(JAVA_INT);
      OpenSsl.Lib.SSL_GET0_ALPN_SELECTED.invokeExact(ssl, data, size);
      int alpnLength = size.get(JAVA_INT, 0);
      applicationProtocol =
          alpnLength == 0
              ? ""
              : new String(
                  data.get(ADDRESS, 0)
                      .reinterpret(alpnLength)
                      .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                  java.nio.charset.StandardCharsets.US_ASCII);
      MemorySegment sslSession = (MemorySegment) OpenSsl.Lib.SSL_GET_SESSION.invokeExact(ssl);
      byte[] id = new byte[0];
      long created = System.currentTimeMillis();
      if (!sslSession.equals(MemorySegment.NULL)) {
        MemorySegment idLength = arena.allocate(JAVA_INT);
        MemorySegment idBytes =
            (MemorySegment) OpenSsl.Lib.SSL_SESSION_GET_ID.invokeExact(sslSession, idLength);
        id =
            idBytes
                .reinterpret(idLength.get(JAVA_INT, 0))
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        if (resumedSessionMillis >= 0) {
          created = Math.min(created - 1, resumedSessionMillis);
        }
      }
      List<SNIServerName> names = new ArrayList<>();
      if (requestedServerName != null) {
        try {
          names.add(new SNIHostName(requestedServerName));
        } catch (IllegalArgumentException notAHostName) {
          // kept out, as the JDK does with a name it cannot parse
        }
      }
      return new OpenSslSession(
          id,
          protocol,
          suite,
          peerCertificates(ssl),
          localChain,
          names,
          created,
          resumedSessionMillis >= 0,
          getPeerHost(),
          getPeerPort());
    } catch (SSLException | RuntimeException e) {
      SSLHandshakeException failure =
          new SSLHandshakeException("cannot take the peer's session: " + e.getMessage());
      failure.initCause(e);
      throw failure;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private List<X509Certificate> peerCertificates(MemorySegment ssl) throws Throwable {
    List<X509Certificate> chain = new ArrayList<>();
    MemorySegment leaf = (MemorySegment) OpenSsl.Lib.SSL_GET1_PEER_CERTIFICATE.invokeExact(ssl);
    if (leaf.equals(MemorySegment.NULL)) {
      return chain;
    }
    try {
      chain.add(toJava(leaf));
    } finally {
      OpenSsl.Lib.X509_FREE.invokeExact(leaf);
    }
    MemorySegment stack = (MemorySegment) OpenSsl.Lib.SSL_GET_PEER_CERT_CHAIN.invokeExact(ssl);
    if (!stack.equals(MemorySegment.NULL)) {
      int count = (int) OpenSsl.Lib.SK_NUM.invokeExact(stack);
      for (int i = 0; i < count; i++) {
        X509Certificate c = toJava((MemorySegment) OpenSsl.Lib.SK_VALUE.invokeExact(stack, i));
        if (!c.equals(chain.get(0))) {
          chain.add(c); // a client's chain has its leaf first; a server's does not
        }
      }
    }
    return chain;
  }

  private static X509Certificate toJava(MemorySegment x509) throws Throwable {
    int length = (int) OpenSsl.Lib.I2D_X509.invokeExact(x509, MemorySegment.NULL);
    if (length <= 0) {
      throw new SSLException("cannot encode a peer certificate");
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment der = arena.allocate(length);
      MemorySegment cursor = arena.allocate(ADDRESS);
      cursor.set(ADDRESS, 0, der);
      int written = (int) OpenSsl.Lib.I2D_X509.invokeExact(x509, cursor);
      byte[] bytes = der.asSlice(0, written).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(bytes));
    } catch (CertificateException e) {
      throw new SSLException("cannot read a peer certificate: " + e.getMessage(), e);
    }
  }

  // ---- settings the connection never changes (they come from the context) ----

  @Override
  public String[] getSupportedCipherSuites() {
    return new String[0];
  }

  @Override
  public String[] getEnabledCipherSuites() {
    return new String[0];
  }

  @Override
  public void setEnabledCipherSuites(String[] suites) {
    throw new UnsupportedOperationException("set cipher suites on the context");
  }

  @Override
  public String[] getSupportedProtocols() {
    return new String[] {"TLSv1.3", "TLSv1.2"};
  }

  @Override
  public String[] getEnabledProtocols() {
    return getSupportedProtocols();
  }

  @Override
  public void setEnabledProtocols(String[] protocols) {
    throw new UnsupportedOperationException("set protocols on the context");
  }

  @Override
  public void setUseClientMode(boolean mode) {
    if (mode != client) {
      throw new IllegalArgumentException("this engine is a " + (client ? "client" : "server"));
    }
  }

  @Override
  public boolean getUseClientMode() {
    return client;
  }

  @Override
  public void setNeedClientAuth(boolean need) {
    throw new UnsupportedOperationException("set client authentication on the context");
  }

  @Override
  public boolean getNeedClientAuth() {
    return false;
  }

  @Override
  public void setWantClientAuth(boolean want) {
    throw new UnsupportedOperationException("set client authentication on the context");
  }

  @Override
  public boolean getWantClientAuth() {
    return false;
  }

  @Override
  public void setEnableSessionCreation(boolean flag) {}

  @Override
  public boolean getEnableSessionCreation() {
    return true;
  }

  @Override
  public String toString() {
    return "OpenSslEngine[" + (client ? "client" : "server") + ", " + session.getProtocol() + "]";
  }
}
