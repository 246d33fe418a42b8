package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.proxy.ClusterSetup;
import dev.sluice.bench.proxy.EchoUpstream;
import dev.sluice.bench.proxy.PemFiles;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyProcess;
import dev.sluice.bench.proxy.ProxySetup;
import dev.sluice.bench.tls.BenchCertificate;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One failover run's processes: N echo upstreams (each a JVM of its own, so that killing one is a
 * real process death), the proxy with a cluster of them, and the load client; started at once on
 * ports the harness picked, stopped client first. The upstreams' ports lie below the kernel's
 * ephemeral range: while an upstream is dead, a connect to a port inside that range can, rarely,
 * connect to itself (TCP simultaneous open) and then hold the port its replacement must bind.
 */
final class FailoverRun implements AutoCloseable {
  private final RunContext context;
  private final Duration timeout;
  final ClusterSetup cluster;
  final ChildProcess[] upstreams;
  final ProxyProcess proxy;
  final ChildProcess client;
  private final List<ChildProcess> replaced = new ArrayList<>();

  private FailoverRun(
      RunContext context,
      ClusterSetup cluster,
      ChildProcess[] upstreams,
      ProxyProcess proxy,
      ChildProcess client) {
    this.context = context;
    this.timeout = context.stepTimeout();
    this.cluster = cluster;
    this.upstreams = upstreams;
    this.proxy = proxy;
    this.client = client;
  }

  /**
   * Starts everything for arm {@code impl} and returns once the upstreams listen and the proxy
   * accepts.
   */
  static FailoverRun start(RunContext context, Impl impl, ClusterSetup health, int peakConnections)
      throws Exception {
    Params params = context.params();
    boolean tls = ProxyWorkload.tls(params);
    ClusterSetup cluster = health;
    ProxySetup setup =
        new ProxySetup(
            ProxySetup.freeLoopbackAddress(),
            cluster.upstreams().getFirst(),
            tls ? PemFiles.shared() : null,
            peakConnections + ProxySetup.MAXCONN_MARGIN,
            params.bytes(ProxyWorkload.READ_BUFFER),
            ProxyWorkload.tlsEngine(params));
    Params clientParams =
        side(ProxyWorkload.CLIENT).with(ProxyWorkload.PROXY_PORT, setup.listen().getPort());
    if (tls) {
      for (Map.Entry<String, String> e : BenchCertificate.shared().params().asMap().entrySet()) {
        clientParams = clientParams.with(e.getKey(), e.getValue());
      }
    }
    ChildProcess[] upstreams = new ChildProcess[cluster.upstreams().size()];
    ProxyProcess proxy = null;
    ChildProcess client = null;
    try {
      for (int i = 0; i < upstreams.length; i++) {
        upstreams[i] = startUpstream(context, cluster.upstreams().get(i), false);
      }
      proxy = ProxyArms.start(impl, setup, cluster);
      client = context.startPeer(ProxyWorkload.CLIENT, clientParams);
      for (ChildProcess upstream : upstreams) {
        upstream.await("LISTENING", context.stepTimeout());
      }
      proxy.awaitReady(context.stepTimeout());
      FailoverRun run = new FailoverRun(context, cluster, upstreams, proxy, client);
      // HAProxy takes a server down on its first failed check after start (one that ran before
      // the upstream's JVM bound), then needs rise passes: the warm-up starts once all are up.
      run.awaitAllUp();
      client.send(Message.of("GO", "phase", "start"));
      return run;
    } catch (Exception | Error e) {
      closeQuietly(client);
      closeQuietly(proxy);
      for (ChildProcess upstream : upstreams) {
        closeQuietly(upstream);
      }
      throw e;
    }
  }

  private static ChildProcess startUpstream(
      RunContext context, InetSocketAddress address, boolean onGo) throws IOException {
    Params params =
        side(ProxyWorkload.UPSTREAM)
            .with(EchoUpstream.PORT, address.getPort())
            .with(EchoUpstream.ON_GO, onGo);
    return context.startPeer(ProxyWorkload.UPSTREAM, params);
  }

  /**
   * Starts the replacement of upstream {@code index} on the same port, which binds when it is told
   * GO; the one it replaces must be dead.
   */
  ChildProcess startReplacement(int index) throws IOException {
    ChildProcess replacement = startUpstream(context, cluster.upstreams().get(index), true);
    replaced.add(upstreams[index]);
    upstreams[index] = replacement;
    return replacement;
  }

  /** Waits until the proxy sees every upstream up. */
  void awaitAllUp() throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    while (true) {
      boolean all = true;
      try {
        for (int i = 0; i < cluster.upstreams().size() && all; i++) {
          all = ProxyArms.upstreamUp(proxy, cluster, i);
        }
      } catch (IOException e) {
        all = false; // Sluice's admin listener may bind a moment after its proxy listener
        last = e;
      }
      if (all) {
        return;
      }
      proxy.checkAlive();
      if (System.nanoTime() > deadline) {
        throw proxy.failure(
            "did not show every upstream up within "
                + timeout.toSeconds()
                + " s"
                + (last == null ? "" : " (" + last + ")"));
      }
      Thread.sleep(FailoverWorkload.POLL.toMillis());
    }
  }

  /** Waits for the client's next line, which must be {@code word}; checks the proxy still runs. */
  Message awaitClient(String word) throws InterruptedException {
    Message message = client.await(word, timeout);
    proxy.checkAlive();
    return message;
  }

  /**
   * {@code count} loopback addresses on distinct ports below the ephemeral range, free a moment
   * ago.
   */
  static List<InetSocketAddress> upstreamAddresses(int count) throws IOException {
    int[] range = ephemeralRange();
    int low = 10_000;
    int high = range[0] - 1;
    if (high - low < 1000) {
      List<InetSocketAddress> any = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        any.add(ProxySetup.freeLoopbackAddress()); // no room below the range: the usual way
      }
      return any;
    }
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    Set<Integer> taken = new HashSet<>();
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (int attempt = 0; addresses.size() < count && attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(low, high + 1);
      if (!taken.add(port)) {
        continue;
      }
      try (ServerSocket probe = new ServerSocket(port, 1, loopback)) {
        addresses.add(new InetSocketAddress(loopback, probe.getLocalPort()));
      } catch (IOException inUse) {
        // try another
      }
    }
    if (addresses.size() < count) {
      throw new IOException("no free loopback port found below " + range[0]);
    }
    return addresses;
  }

  private static int[] ephemeralRange() {
    // Line by line: Files.readString gives a /proc/sys file's first byte alone.
    try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String[] parts = in.readLine().trim().split("\\s+");
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (IOException | RuntimeException e) {
      return new int[] {32768, 60999}; // Linux's default
    }
  }

  private static Params side(String side) {
    return Params.of(Map.of(ProxyWorkload.SIDE, side));
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception ignored) {
        // closing after a failure: the first failure is the one thrown
      }
    }
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      try {
        proxy.close();
      } finally {
        for (ChildProcess upstream : upstreams) {
          closeQuietly(upstream);
        }
        for (ChildProcess gone : replaced) {
          closeQuietly(gone);
        }
      }
    }
  }
}
