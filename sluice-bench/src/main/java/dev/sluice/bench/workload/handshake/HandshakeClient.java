package dev.sluice.bench.workload.handshake;

import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.KeyType;
import dev.sluice.bench.tls.TlsVersion;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSession;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * The handshake workload's load client: Netty with OpenSSL (netty-tcnative's BoringSSL), so that
 * the client's own handshake costs the shared cores as little as a JVM allows. {@code parallel}
 * slots each run one connection after another until the phase's time is up: connect, handshake,
 * check the version negotiated and whether OpenSSL resumed a session, send a few bytes of the
 * project's payload pattern (a seed per connection), read their echo from the upstream through the
 * proxy, check every byte, close.
 *
 * <p>Full handshakes come from handlers made without a peer address: Netty's client session cache
 * is keyed by host and port, so such a handler offers no session (and sends no SNI, which the
 * servers' single certificate does not need; the chain is verified all the same). Resumed ones come
 * from one context per slot with handlers for {@code localhost} and the proxy's port: each slot's
 * cache holds the sessions (TLS 1.3 tickets are used once) its own previous connection received, so
 * whether a connection can resume does not depend on how the other slots raced.
 */
public final class HandshakeClient implements AutoCloseable {
  /** How long one connection may take before the phase fails. */
  static final long CONNECTION_TIMEOUT_SECONDS = 10;

  private final EventLoopGroup group;
  private final InetSocketAddress proxy;
  private final TlsVersion version;
  private final int message;
  private final X509Certificate certificate;
  private final KeyType key;
  private final SslContext fresh;
  private final SslContext[] resuming;
  private final AtomicLong seeds = new AtomicLong();

  private HandshakeClient(
      EventLoopGroup group,
      InetSocketAddress proxy,
      TlsVersion version,
      int message,
      X509Certificate certificate,
      KeyType key,
      int slots)
      throws SSLException {
    this.group = group;
    this.proxy = proxy;
    this.version = version;
    this.message = message;
    this.certificate = certificate;
    this.key = key;
    this.fresh = context(certificate, version, key, false);
    this.resuming = new SslContext[slots];
    emptyCaches(slots);
  }

  /** A new resuming context, so an empty session cache, for each of the first {@code slots}. */
  private void emptyCaches(int slots) throws SSLException {
    for (int i = 0; i < slots; i++) {
      resuming[i] = context(certificate, version, key, true);
    }
  }

  /**
   * A client of {@code proxy} with {@code slots} slots on {@code threads} event-loop threads,
   * trusting {@code certificate}, offering only {@code version} (with TLS 1.2, only the ECDHE
   * AES-128-GCM suite of {@code key}; BoringSSL's TLS 1.3 suites cannot be chosen), X25519 first.
   *
   * @throws IllegalStateException when netty-tcnative's OpenSSL did not load
   */
  public static HandshakeClient create(
      InetSocketAddress proxy,
      X509Certificate certificate,
      TlsVersion version,
      KeyType key,
      int slots,
      int threads,
      int message)
      throws SSLException {
    if (!OpenSsl.isAvailable()) {
      throw new IllegalStateException(
          "the handshake client needs netty-tcnative's OpenSSL, which did not load: "
              + OpenSsl.unavailabilityCause(),
          OpenSsl.unavailabilityCause());
    }
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
    try {
      return new HandshakeClient(group, proxy, version, message, certificate, key, slots);
    } catch (SSLException | RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static SslContext context(
      X509Certificate certificate, TlsVersion version, KeyType key, boolean verifyHost)
      throws SSLException {
    SslContextBuilder builder =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.OPENSSL)
            .trustManager(certificate)
            .protocols(version.protocol())
            // X25519 first, so it is the key exchange; P-256 too, because a TLS 1.2 server may
            // sign with a P-256 certificate only for a client that lists that curve.
            .option(OpenSslContextOption.GROUPS, new String[] {"X25519", "P-256"});
    if (version == TlsVersion.TLS_1_2) {
      builder.ciphers(List.of(key.tls12CipherSuite()));
    }
    // Netty verifies the host name by default; a handler without a peer address has none to check.
    builder.endpointIdentificationAlgorithm(verifyHost ? "HTTPS" : null);
    return builder.build();
  }

  /** OpenSSL's version as the client runs it, for the report. */
  public static String library() {
    return OpenSsl.versionString();
  }

  /**
   * Runs one phase: every slot (the first {@code slots} of them) runs connections of {@code kind}
   * one after another until {@code durationNanos} have passed or it has run {@code perSlotLimit},
   * then the phase waits for the last to end.
   */
  public HandshakeTally run(HandshakeKind kind, int slots, long durationNanos, long perSlotLimit)
      throws InterruptedException {
    if (slots > resuming.length) {
      throw new IllegalArgumentException("at most " + resuming.length + " slots");
    }
    Phase phase = new Phase(kind, System.nanoTime() + durationNanos, perSlotLimit, slots);
    for (int i = 0; i < slots; i++) {
      new Slot(phase, i).next();
    }
    long limit = TimeUnit.NANOSECONDS.toSeconds(durationNanos) + 2 * CONNECTION_TIMEOUT_SECONDS;
    if (!phase.slotsLeft.await(limit, TimeUnit.SECONDS)) {
      phase.fail("the phase did not end within " + limit + " s");
    }
    return phase.tally();
  }

  /**
   * Gives each of the first {@code slots} slots a session made now: an empty cache each, then one
   * connection, a full handshake, whose session the cache keeps. A resumed TLS 1.2 session keeps
   * the time it was made, and the client (Netty's default) and the servers (OpenSSL's and HAProxy's
   * defaults) drop it after 300 s: without this, sessions from the first warm-up round expired in
   * the measured phase after a long warm-up (on 2026-12-04, with {@code --warmup-seconds 298}, 16
   * of 20,416 resumed-phase handshakes on HAProxy were new sessions, one a slot).
   *
   * @throws IllegalStateException when a connection failed or resumed (an old session offered)
   */
  public void renewSessions(int slots) throws SSLException, InterruptedException {
    emptyCaches(slots);
    HandshakeTally renewal = run(HandshakeKind.RESUMED, slots, Long.MAX_VALUE / 4, 1);
    if (renewal.failed() > 0 || renewal.resumed() > 0 || renewal.handshakes() != slots) {
      throw new IllegalStateException(
          "renewing the slots' sessions: "
              + renewal.handshakes()
              + " of "
              + slots
              + " connections, "
              + renewal.resumed()
              + " resumed, "
              + renewal.failed()
              + " failed"
              + (renewal.failed() > 0 ? " (the first: " + renewal.firstFailure() + ")" : ""));
    }
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One phase's shared counts. */
  private static final class Phase {
    final HandshakeKind kind;
    final long deadline;
    final long perSlotLimit;
    final long start = System.nanoTime();
    final CountDownLatch slotsLeft;
    final AtomicLong handshakes = new AtomicLong();
    final AtomicLong resumed = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong lastEnd = new AtomicLong();
    final AtomicReference<String> firstFailure = new AtomicReference<>("");
    final Set<String> suites = ConcurrentHashMap.newKeySet();
    final Set<String> groups = ConcurrentHashMap.newKeySet();

    Phase(HandshakeKind kind, long deadline, long perSlotLimit, int slots) {
      this.kind = kind;
      this.deadline = deadline;
      this.perSlotLimit = perSlotLimit;
      this.slotsLeft = new CountDownLatch(slots);
    }

    void fail(String why) {
      failed.incrementAndGet();
      firstFailure.compareAndSet("", why);
    }

    HandshakeTally tally() {
      return new HandshakeTally(
          kind,
          handshakes.get(),
          resumed.get(),
          failed.get(),
          firstFailure.get(),
          Math.max(0, lastEnd.get() - start),
          String.join(",", new TreeSet<>(suites)),
          String.join(",", new TreeSet<>(groups)));
    }
  }

  /** One slot: its connections, one after another. */
  private final class Slot {
    private final Phase phase;
    private final int index;
    private long runs;

    Slot(Phase phase, int index) {
      this.phase = phase;
      this.index = index;
    }

    void next() {
      if (System.nanoTime() >= phase.deadline || runs >= phase.perSlotLimit) {
        phase.slotsLeft.countDown();
        return;
      }
      runs++;
      long seed = seeds.getAndIncrement();
      Connection connection = new Connection(phase, seed);
      ChannelFuture connect =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                      SslHandler ssl =
                          phase.kind == HandshakeKind.FULL
                              ? fresh.newHandler(channel.alloc())
                              : resuming[index].newHandler(
                                  channel.alloc(), BenchCertificate.HOST, proxy.getPort());
                      channel.pipeline().addLast(ssl, connection);
                    }
                  })
              .connect(proxy);
      Channel channel = connect.channel();
      connect.addListener(
          (ChannelFutureListener)
              f -> {
                if (!f.isSuccess()) {
                  connection.fail("connect failed: " + f.cause());
                }
              });
      ScheduledFuture<?> timeout =
          channel
              .eventLoop()
              .schedule(
                  () -> connection.fail("not done within " + CONNECTION_TIMEOUT_SECONDS + " s"),
                  CONNECTION_TIMEOUT_SECONDS,
                  TimeUnit.SECONDS);
      channel
          .closeFuture()
          .addListener(
              f -> {
                timeout.cancel(false);
                if (connection.done) {
                  next();
                } else {
                  connection.fail("connection " + seed + " closed before its echo was complete");
                  phase.slotsLeft.countDown(); // a failed slot stops: the phase has failed anyway
                }
              });
    }
  }

  /** {@code t} and its causes, innermost last: OpenSSL's reason is often only in a cause. */
  static String causes(Throwable t) {
    StringBuilder text = new StringBuilder(String.valueOf(t));
    for (Throwable c = t.getCause(); c != null && c != t; c = c.getCause()) {
      text.append(" <- ").append(c);
    }
    return text.toString();
  }

  /** One connection: handshake, checks, a patterned echo, close. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final Phase phase;
    private final long seed;
    private final PatternVerifier verifier;
    private boolean reused;
    private long received;
    boolean done;
    private boolean failed;
    private Channel channel;

    Connection(Phase phase, long seed) {
      this.phase = phase;
      this.seed = seed;
      this.verifier = new PayloadPattern(seed).verifier(0);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      channel = ctx.channel();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (!(event instanceof SslHandshakeCompletionEvent completion)) {
        ctx.fireUserEventTriggered(event);
        return;
      }
      if (!completion.isSuccess()) {
        fail("handshake failed: " + causes(completion.cause()));
        return;
      }
      SSLEngine engine = ctx.pipeline().get(SslHandler.class).engine();
      SSLSession session = engine.getSession();
      if (!version.protocol().equals(session.getProtocol())) {
        fail("negotiated " + session.getProtocol() + ", expected " + version.protocol());
        return;
      }
      reused = SSL.isSessionReused(((ReferenceCountedOpenSslEngine) engine).sslPointer());
      phase.suites.add(session.getCipherSuite());
      if (session instanceof OpenSslSession openSsl && openSsl.getNamedGroup() != null) {
        phase.groups.add(openSsl.getNamedGroup());
      }
      byte[] bytes = new PayloadPattern(seed).bytes(0, message);
      ctx.writeAndFlush(Unpooled.wrappedBuffer(bytes))
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      fail("write failed: " + f.cause());
                    }
                  });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (done || failed) {
          return;
        }
        ByteBuf buf = (ByteBuf) msg;
        int n = buf.readableBytes();
        if (received + n > message) {
          fail(
              "connection " + seed + ": " + (received + n) + " bytes echoed, " + message + " sent");
          return;
        }
        ByteBuffer bytes = buf.nioBuffer();
        if (!verifier.update(bytes)) {
          fail("connection " + seed + ": " + verifier.failure());
          return;
        }
        received += n;
        if (received == message) {
          done = true;
          phase.handshakes.incrementAndGet();
          if (reused) {
            phase.resumed.incrementAndGet();
          }
          phase.lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
          ctx.close();
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!done) {
        fail("connection " + seed + " closed after " + received + " of " + message + " bytes");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail("connection " + seed + ": " + cause);
    }

    /** Counts this connection as failed, once, and closes it; a done one is left alone. */
    void fail(String why) {
      if (done || failed) {
        return;
      }
      failed = true;
      phase.fail(why);
      if (channel != null) {
        channel.close();
      }
    }
  }
}
