package dev.sluice.bench.proxy;

import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.tls.BenchTls;
import io.netty.handler.ssl.OpenSsl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The proxy arms and how each is started from the same {@link ProxySetup}: {@code sluice} (the
 * Sluice proxy, {@link SluiceArm}), {@code netty} ({@link NettyProxy}, a JVM with the same flags as
 * Sluice's; TLS on the JDK's engine), {@code netty-epoll} (the same proxy on Netty's native epoll
 * transport, and where it terminates TLS, netty-tcnative's BoringSSL as netty-openssl's), {@code
 * netty-openssl} (the same proxy with TLS on netty-tcnative's BoringSSL: an arm only where TLS is
 * terminated) and {@code haproxy} ({@link HaproxyArm}). Each is a process of its own, configured in
 * a fresh temporary directory.
 */
public final class ProxyArms {
  private ProxyArms() {}

  /** The arms that can run here without TLS: Sluice's only once its proxy is built. */
  public static Set<Impl> available() {
    return available(false);
  }

  /**
   * The arms that can run here, with {@code tls} terminated or not: Sluice's only once its proxy is
   * built; Netty's on OpenSSL only with TLS (without, it is the Netty arm again).
   */
  public static Set<Impl> available(boolean tls) {
    Set<Impl> arms = EnumSet.of(Impl.NETTY, Impl.NETTY_EPOLL, Impl.HAPROXY);
    if (SluiceArm.unavailableReason() == null) {
      arms.add(Impl.SLUICE);
    }
    if (tls) {
      arms.add(Impl.NETTY_OPENSSL);
    }
    return arms;
  }

  /** Null when the Sluice arm can run; otherwise why it cannot. */
  public static String sluiceUnavailableReason() {
    return SluiceArm.unavailableReason();
  }

  /** The JVM flags of both JVM arms (Sluice and Netty). */
  public static List<String> jvmFlags() {
    return SluiceArm.jvmFlags();
  }

  /** Whether the JVM arms' flags trim the C heap periodically (a non-zero interval). */
  public static boolean trimsNativeHeap() {
    return jvmFlags().stream()
        .anyMatch(f -> f.startsWith("-XX:TrimNativeHeapInterval=") && !f.endsWith("=0"));
  }

  /** Starts arm {@code impl}'s proxy for {@code setup}; wait for it with awaitReady. */
  public static ProxyProcess start(Impl impl, ProxySetup setup)
      throws IOException, InterruptedException {
    return start(impl, setup, null);
  }

  /**
   * Starts arm {@code impl}'s proxy for {@code setup}, forwarding to {@code cluster}'s upstreams
   * when it is not null (Sluice and HAProxy only: the Netty proxy has one upstream and no checks).
   */
  public static ProxyProcess start(Impl impl, ProxySetup setup, ClusterSetup cluster)
      throws IOException, InterruptedException {
    if (impl == Impl.NETTY_OPENSSL && setup.tls() == null) {
      throw new IllegalArgumentException("the netty-openssl arm is an arm only with TLS");
    }
    Path dir = Files.createTempDirectory("sluice-bench-" + impl.id());
    List<String> command;
    boolean jvm = true;
    switch (impl) {
      case SLUICE -> {
        Path config = dir.resolve("proxy.yaml");
        Files.writeString(config, SluiceArm.yaml(setup, cluster), StandardCharsets.UTF_8);
        command = SluiceArm.command(config);
      }
      case NETTY, NETTY_EPOLL, NETTY_OPENSSL -> {
        if (cluster != null) {
          throw new IllegalArgumentException("the Netty proxy has one upstream and no checks");
        }
        command = nettyCommand(setup, nettyTlsProvider(impl), NettyTransport.of(impl));
      }
      case HAPROXY -> {
        Path config = dir.resolve("haproxy.cfg");
        Files.writeString(config, HaproxyArm.config(setup, dir, cluster), StandardCharsets.UTF_8);
        command = HaproxyArm.command(HaproxyArm.executable(), config);
        jvm = false;
      }
      default -> throw new IllegalArgumentException("no proxy arm " + impl.id());
    }
    return ProxyProcess.start(impl, command, jvm, setup.listen(), dir);
  }

  /** Where the embedded demo's plain listener is ({@code ./sluice} with no arguments). */
  public static final InetSocketAddress DEMO_LISTENER = new InetSocketAddress("127.0.0.1", 7000);

  /**
   * Starts the Sluice proxy as it ships: {@code java} with {@code jvm.options} and the module's
   * build, or {@code launcher} (a program taking {@code ./sluice}'s arguments, such as the release
   * archive's {@code bin/sluice}) when it is not null; on {@code setup}'s generated configuration,
   * or the embedded demo (listening on {@link #DEMO_LISTENER}) when {@code setup} is null.
   */
  public static ProxyProcess startSluice(Path launcher, ProxySetup setup) throws IOException {
    Path dir = Files.createTempDirectory("sluice-bench-" + Impl.SLUICE.id());
    Path config = null;
    if (setup != null) {
      config = dir.resolve("proxy.yaml");
      Files.writeString(config, SluiceArm.yaml(setup), StandardCharsets.UTF_8);
    }
    return ProxyProcess.start(
        Impl.SLUICE,
        SluiceArm.command(launcher, config),
        true,
        setup == null ? DEMO_LISTENER : setup.listen(),
        dir);
  }

  /**
   * The TLS provider of Netty arm {@code impl} where it terminates TLS: OpenSSL (netty-tcnative's
   * BoringSSL) for the netty-openssl arm and for netty-epoll (a Netty user on Linux who takes the
   * native transport takes the native TLS too), the JDK's engine for the netty arm.
   */
  static String nettyTlsProvider(Impl impl) {
    return impl == Impl.NETTY_OPENSSL || impl == Impl.NETTY_EPOLL ? "openssl" : "jdk";
  }

  private static List<String> nettyCommand(
      ProxySetup setup, String provider, NettyTransport transport) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(NettyProxy.class.getName());
    command.addAll(
        List.of(
            "--listen",
            ProxySetup.hostPort(setup.listen()),
            "--upstream",
            ProxySetup.hostPort(setup.upstream()),
            "--transport",
            transport.id()));
    if (setup.tls() != null) {
      command.addAll(
          List.of(
              "--cert",
              setup.tls().certificate().toString(),
              "--key",
              setup.tls().key().toString(),
              "--provider",
              provider));
    }
    return command;
  }

  /**
   * What the report states about the arms: how each proxy runs, its flags, and why Sluice's did not
   * run when it did not.
   */
  public static Map<String, String> conditions(boolean tls) {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put(
        "processes",
        "proxy, load client and echo upstream are three processes; the harness reads the proxy's"
            + " /proc/PID/status and stat");
    conditions.put(
        "proxyJvmFlags",
        String.join(" ", jvmFlags()) + " (both JVM arms; from " + SluiceArm.jvmFlagsSource() + ")");
    String reason = SluiceArm.unavailableReason();
    conditions.put(
        "sluice",
        reason == null
            ? "java FLAGS -cp sluice-proxy+deps "
                + SluiceArm.MAIN
                + " run --config FILE (readBufferSize as --read-buffer, maxBytesInFlight 256MiB,"
                + " timeouts connect 5s, idle 1h, handshake 10s)"
            : "not run: " + reason);
    conditions.put(
        "netty",
        "NettyProxy: auto-read off, next read on write success (Netty's proxy example), backend on"
            + " the same event loop, NIO, default allocator and thread counts, TCP_NODELAY"
            + (tls ? ", SslHandler on SslProvider.JDK" : ""));
    conditions.put(
        "netty-epoll",
        "the netty arm's proxy on Netty's native epoll transport (netty-transport-native-epoll,"
            + " linux-x86_64; EpollIoHandler, EpollSocketChannel), refusing to start where it does"
            + " not load"
            + (tls
                ? ", SslHandler on SslProvider.OPENSSL as the netty-openssl arm (native transport"
                    + " and native TLS: what a Netty user on Linux runs)"
                : ""));
    if (tls) {
      conditions.put(
          "netty-openssl",
          "the netty arm's proxy with SslHandler on SslProvider.OPENSSL: netty-tcnative's"
              + " BoringSSL (netty-tcnative-boringssl-static, linux-x86_64), its default session"
              + " cache and tickets");
    }
    conditions.put(
        "haproxy",
        "mode tcp, maxconn = the run's connections + "
            + ProxySetup.MAXCONN_MARGIN
            + " (global and frontend), nbthread "
            + HaproxyArm.THREADS
            + ", nosplice (and no option splice-*), bufsize default (16 KiB), timeout connect 5s,"
            + " client and server 1h, -db (foreground, no master)"
            + (tls ? ", bind ... ssl crt PEM (OpenSSL)" : ""));
    return conditions;
  }

  /**
   * Whether upstream {@code index} of {@code cluster} takes new connections in {@code proxy}'s own
   * view: Sluice's {@code /metrics.json} (its state {@code up}, not {@code down} or {@code
   * ejected}), HAProxy's {@code show stat} (a status starting with {@code UP}).
   */
  public static boolean upstreamUp(ProxyProcess proxy, ClusterSetup cluster, int index)
      throws IOException, InterruptedException {
    return switch (proxy.impl()) {
      case SLUICE -> SluiceArm.upstreamUp(cluster, index);
      case HAPROXY -> HaproxyArm.serverUp(proxy, ClusterSetup.serverName(index));
      default -> throw new IllegalArgumentException(proxy.impl().id() + " has no health checks");
    };
  }

  /**
   * What arm {@code impl} says about itself in the report (HAProxy: its version; Netty on OpenSSL:
   * the library, which the proxy loads from the same netty-tcnative jar as this process; Sluice
   * with TLS: the library its OpenSSL engine loads, chosen by the environment both inherit).
   */
  public static Map<String, String> notes(Impl impl) throws IOException, InterruptedException {
    return notes(impl, impl == Impl.NETTY_OPENSSL);
  }

  /**
   * As {@link #notes(Impl)} for a run that terminates TLS or not ({@code tls}): with TLS, each
   * Netty arm on OpenSSL names the library.
   */
  public static Map<String, String> notes(Impl impl, boolean tls)
      throws IOException, InterruptedException {
    return notes(impl, tls, "jdk");
  }

  /**
   * As {@link #notes(Impl, boolean)}, where the Sluice arm terminates TLS on {@code sluiceEngine}
   * ({@code openssl}, {@code jdk}, or null for auto): on the OpenSSL engine it names the library.
   */
  public static Map<String, String> notes(Impl impl, boolean tls, String sluiceEngine)
      throws IOException, InterruptedException {
    if (impl == Impl.HAPROXY) {
      return Map.of("version", HaproxyArm.version(HaproxyArm.executable()));
    }
    if (tls && (impl == Impl.NETTY_OPENSSL || impl == Impl.NETTY_EPOLL)) {
      return Map.of(BenchTls.LIBRARY, OpenSsl.versionString());
    }
    if (tls && impl == Impl.SLUICE && !"jdk".equals(sluiceEngine)) {
      // The library under Sluice's OpenSSL engine (SLUICE_TLS_LIBRARY, inherited by the proxy).
      String version = dev.sluice.tls.TlsEngineKind.openSslVersion();
      return Map.of(
          BenchTls.LIBRARY,
          version != null
              ? version
              : "none: " + dev.sluice.tls.TlsEngineKind.openSslUnavailableReason());
    }
    return Map.of();
  }
}
