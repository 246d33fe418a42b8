package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.LeakTracker;
import dev.sluice.memory.MemoryStats;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.tls.KeyMaterialException;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsClientConfig;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsEngineKind;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import dev.sluice.tls.openssl.OpenSslEngine;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;

/** Groups, servers and clients for TLS tests; checks after each test that nothing leaked. */
public abstract class TlsTestBase {
  protected static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
  protected static final long TIMEOUT_SECONDS = 30;

  protected final TestPki pki = TestPki.get();
  private final List<EventLoopGroup> groups = new ArrayList<>();
  private final List<Listener> listeners = new ArrayList<>();

  protected EventLoopGroup group(TransportConfig config) {
    EventLoopGroup group = new EventLoopGroup(config);
    groups.add(group);
    return group;
  }

  protected EventLoopGroup group() {
    return group(TransportConfig.defaults().withEventLoops(2));
  }

  protected Listener listen(
      EventLoopGroup group, TlsServerConfig config, Supplier<? extends RecordingHandler> handlers)
      throws Exception {
    return listen(group, config, SocketOptions.defaults(), handlers);
  }

  protected Listener listen(
      EventLoopGroup group,
      TlsServerConfig config,
      SocketOptions options,
      Supplier<? extends RecordingHandler> handlers)
      throws Exception {
    Listener listener = TlsServer.create(config).listen(group, LOOPBACK, options, handlers);
    listeners.add(listener);
    return listener;
  }

  /**
   * The engine the tests of this JVM run on: the default configuration's ({@code
   * -Dsluice.tls.engine}, auto unless set), as a server without OCSP stapling resolves it.
   */
  public static TlsEngineKind engine() {
    TlsEngineKind kind = TlsEngineKind.defaultKind();
    return kind == TlsEngineKind.AUTO ? TlsEngineKind.autoChoice() : kind;
  }

  /** Whether the OpenSSL engine under test runs on BoringSSL ({@code -Dsluice.tls.library}). */
  public static boolean onBoringSsl() {
    return engine() == TlsEngineKind.OPENSSL
        && dev.sluice.tls.openssl.OpenSsl.library()
            == dev.sluice.tls.openssl.OpenSsl.Library.BORINGSSL;
  }

  /** The engine the tests' clients run on: auto is the JDK for a client. */
  protected static TlsEngineKind clientEngine() {
    TlsEngineKind kind = TlsEngineKind.defaultKind();
    return kind == TlsEngineKind.AUTO ? TlsEngineKind.JDK : kind;
  }

  /** What the client engine under test says of a failure, worded per engine. */
  protected static String clientEngineSays(String jdk, String openssl) {
    return clientEngine() == TlsEngineKind.JDK ? jdk : openssl;
  }

  /** What the engine under test says of a failure, where the two engines word it differently. */
  protected static String engineSays(String jdk, String openssl) {
    return engine() == TlsEngineKind.JDK ? jdk : openssl;
  }

  protected TlsServerConfig serverConfig() throws KeyMaterialException {
    return TlsServerConfig.of(pki.serverKeyMaterial());
  }

  protected TlsClientConfig clientConfig() throws KeyMaterialException {
    return TlsClientConfig.trusting(pki.caTrust()).withServerName("localhost");
  }

  protected TlsConnection connect(
      EventLoopGroup group, TlsClientConfig config, Listener listener, RecordingHandler handler)
      throws Exception {
    return TlsClient.create(config)
        .connect(group, listener.localAddress(), SocketOptions.defaults(), handler)
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  protected static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  /** Polls until the group holds no per-connection memory (loops settle asynchronously). */
  protected static MemoryStats awaitQuiet(EventLoopGroup group) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    MemoryStats stats = group.memoryStats();
    while (System.nanoTime() < deadline && !quiet(stats)) {
      Thread.sleep(5);
      stats = group.memoryStats();
    }
    return stats;
  }

  protected static boolean quiet(MemoryStats stats) {
    return stats.pendingWriteBytes() == 0
        && stats.pendingCopyBytes() == 0
        && stats.tlsHeldCiphertextBytes() == 0
        && stats.handedOffChunks() == 0;
  }

  private final long opensslEnginesBefore = OpenSslEngine.liveCount();

  @AfterEach
  void closeAndCheckForLeaks() throws InterruptedException {
    listeners.forEach(Listener::close);
    groups.forEach(EventLoopGroup::close);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (OpenSslEngine.liveCount() > opensslEnginesBefore && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(OpenSslEngine.liveCount())
        .as("OpenSSL SSL objects still alive after the test's connections closed")
        .isEqualTo(opensslEnginesBefore);
    List<LeakTracker.Allocation> live = LeakTracker.live();
    LeakTracker.reset();
    assertThat(live).as("slabs or handed-off chunks still live after the test").isEmpty();
  }
}
