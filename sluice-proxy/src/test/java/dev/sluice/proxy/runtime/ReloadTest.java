package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.config.SpliceMode;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.proxy.testing.ServedCertificate;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reloading a configuration file: established pairs keep their upstream and take the new read sizes
 * and timeouts; new connections take the new routes; a bad file changes nothing; an edit of the
 * file is picked up by itself.
 */
class ReloadTest {
  @TempDir Path dir;

  private final List<Pair> closed = new CopyOnWriteArrayList<>();
  private final Map<Pair, Long> closedAtNanos = new ConcurrentHashMap<>();

  private static String config(String cluster, String readSize, String idle, String... upstreams) {
    StringBuilder clusters = new StringBuilder();
    for (int i = 0; i < upstreams.length; i++) {
      clusters
          .append("  - {name: c")
          .append(i)
          .append(", upstreams: [{address: \"")
          .append(upstreams[i])
          .append("\"}]}\n");
    }
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: %s
        clusters:
        %s
        buffers: {readBufferSize: %s}
        timeouts: {idle: %s}
        """
        .formatted(cluster, clusters.toString().stripTrailing(), readSize, idle);
  }

  private ProxyService start(Path file) throws Exception {
    return ProxyService.start(
        ConfigReader.read(file),
        file,
        (l, pair) -> {
          closedAtNanos.put(pair, System.nanoTime());
          closed.add(pair);
        });
  }

  private static Socket connect(ProxyService service) throws IOException {
    InetSocketAddress address =
        (InetSocketAddress) service.runtime().listener("front").boundAddress();
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static Socket connect(ProxyService service, String listener) throws IOException {
    InetSocketAddress address =
        (InetSocketAddress) service.runtime().listener(listener).boundAddress();
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private static boolean accepts(int port) {
    try {
      new Socket("127.0.0.1", port).close();
      return true;
    } catch (IOException refused) {
      return false;
    }
  }

  /** A byte each way through a pair: the client's socket and the upstream's end of it. */
  private static void roundTrip(Socket client, Socket server, int b) throws IOException {
    client.getOutputStream().write(b);
    assertThat(server.getInputStream().read()).isEqualTo(b);
    server.getOutputStream().write(b + 1);
    assertThat(client.getInputStream().read()).isEqualTo(b + 1);
  }

  private static Pair onlyPair(ProxyService service) {
    List<Pair> pairs = new ArrayList<>();
    service.runtime().forEachPair(pairs::add);
    assertThat(pairs).hasSize(1);
    return pairs.getFirst();
  }

  @Test
  void aHeldPairKeepsItsUpstreamAndTakesTheNewReadSizeAndIdleTimeout() throws Exception {
    try (ScriptedUpstream first = ScriptedUpstream.start();
        ScriptedUpstream second = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", first.address(), second.address()));
      try (ProxyService service = start(file);
          Socket client = connect(service)) {
        client.getOutputStream().write('a');
        Socket server = first.next();
        assertThat(server.getInputStream().read()).isEqualTo('a');
        Pair pair = onlyPair(service);

        Files.writeString(file, config("c1", "1KiB", "500ms", first.address(), second.address()));
        assertThat(service.reload("test")).isTrue();

        // The held pair still goes to the first upstream, now in reads of at most 1 KiB.
        long readsBefore = pair.client().reads();
        byte[] data = new PayloadPattern(5).bytes(0, 256 * 1024);
        client.getOutputStream().write(data);
        assertThat(server.getInputStream().readNBytes(data.length)).isEqualTo(data);
        Await.until(
            () -> pair.client().bytesRead() == 1 + data.length, () -> "the proxy to read it all");
        assertThat(pair.client().reads() - readsBefore)
            .as("reads of at most 1 KiB for 256 KiB")
            .isGreaterThanOrEqualTo(256);

        // A new client takes the new route.
        try (Socket another = connect(service)) {
          another.getOutputStream().write('b');
          try (Socket toSecond = second.next()) {
            assertThat(toSecond.getInputStream().read()).isEqualTo('b');
          }
        }

        // And the held pair's idle timeout is the new one: it is cut after half a second quiet.
        assertThat(client.getInputStream().read()).isEqualTo(-1);
        Await.until(() -> closed.size() >= 2, () -> closed.size() + " pairs closed");
        assertThat(closed).extracting(Pair::cause).contains(CloseCause.IDLE_TIMEOUT);
        server.close();
      }
    }
  }

  @Test
  void aListenerMovedToAnotherAddressKeepsItsCountersAndCountsItsOldPairs() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      try (ProxyService service = start(file)) {
        Socket held = connect(service);
        held.getOutputStream().write('a');
        Socket server = upstream.next();
        assertThat(server.getInputStream().read()).isEqualTo('a');
        ListenerRuntime before = service.runtime().listener("front");

        // 127.0.0.2 is loopback too: the listener is bound anew; the held pair goes on.
        Files.writeString(
            file,
            config("c0", "64KiB", "1h", upstream.address()).replace("127.0.0.1:0", "127.0.0.2:0"));
        assertThat(service.reload("test")).isTrue();
        ListenerRuntime after = service.runtime().listener("front");
        assertThat(after).isNotSameAs(before);
        assertThat(after.stats().acceptedCount()).as("accepted, never going down").isEqualTo(1);
        assertThat(after.stats().openCount()).as("the old address's pair still counted").isOne();

        held.close();
        server.close();
        Await.until(() -> after.stats().openCount() == 0, () -> "the held pair's end counted");
        assertThat(after.stats().closedCount(CloseCause.CLIENT_EOF)).isOne();
      }
    }
  }

  @Test
  void aBadFileIsRejectedWholeAndTheRunningConfigurationStays() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      try (ProxyService service = start(file)) {
        Files.writeString(file, config("nope", "64KiB", "1h", upstream.address()));
        assertThat(service.reload("test")).isFalse();
        Files.writeString(file, "listeners: [unterminated");
        assertThat(service.reload("test")).isFalse();
        assertThat(service.failedReloads()).isGreaterThanOrEqualTo(2);
        assertThat(service.reloads()).isZero();
        try (Socket client = connect(service)) {
          client.getOutputStream().write('z');
          try (Socket server = upstream.next()) {
            assertThat(server.getInputStream().read()).isEqualTo('z');
          }
        }
      }
    }
  }

  @Test
  void anEditedFileIsReloadedByItself() throws Exception {
    try (ScriptedUpstream first = ScriptedUpstream.start();
        ScriptedUpstream second = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", first.address(), second.address()));
      try (ProxyService service = start(file)) {
        Files.writeString(file, config("c1", "64KiB", "1h", first.address(), second.address()));
        Await.until(() -> service.reloads() == 1, () -> "the watcher to reload the edited file");
        try (Socket client = connect(service)) {
          client.getOutputStream().write('w');
          try (Socket server = second.next()) {
            assertThat(server.getInputStream().read()).isEqualTo('w');
          }
        }
      }
    }
  }

  @Test
  void turningSplicingOffIsRefusedUntilARestart() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      try (ProxyService service = start(file)) {
        Files.writeString(file, "splice: off\n" + config("c0", "64KiB", "1h", upstream.address()));
        assertThatThrownBy(() -> service.runtime().reload(ConfigReader.read(file)))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("splice")
            .hasMessageContaining("splicing is auto until a restart (asked for off)");
        assertThat(service.runtime().config().splice()).isEqualTo(SpliceMode.AUTO);
      }
    }
  }

  @Test
  void aReadSizeAboveTheRunningSlabIsRefusedWithTheReason() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      try (ProxyService service = start(file)) {
        Files.writeString(file, config("c0", "256KiB", "1h", upstream.address()));
        assertThat(service.reload("test")).isFalse();
        assertThat(service.runtime().config().listeners().getFirst().reads().client())
            .isEqualTo(64 * 1024);
      }
    }
  }

  @Test
  void aPairOfAListenerRemovedByAReloadDrainsAtShutdownLikeAnyOther() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      String both =
          """
          listeners:
            - {name: front, address: "127.0.0.1:0", cluster: c0}
            - {name: side, address: "127.0.0.1:0", cluster: c0}
          clusters:
            - {name: c0, upstreams: [{address: "%s"}]}
          timeouts: {drain: 2s}
          """
              .formatted(upstream.address());
      Files.writeString(file, both);
      try (ProxyService service = start(file);
          Socket client = connect(service, "side");
          Socket server = upstream.next()) {
        roundTrip(client, server, 'a');
        Files.writeString(file, both.replaceAll("(?m)^.*name: side.*\n", ""));
        assertThat(service.reload("test")).isTrue();
        assertThat(service.runtime().listener("side")).as("side removed").isNull();

        long shutdownBegan = System.nanoTime();
        Thread shutdown = Thread.ofPlatform().start(service::shutdownGracefully);
        Await.until(service.runtime()::isStopping, () -> "the shutdown to begin");
        roundTrip(client, server, 'c'); // the pair forwards on while the proxy drains

        shutdown.join(Await.PATIENCE);
        assertThat(shutdown.isAlive()).as("the shutdown is over").isFalse();
        Pair pair = closed.getFirst();
        assertThat(pair.listenerName()).isEqualTo("side");
        assertThat(pair.cause()).isEqualTo(CloseCause.SHUTDOWN);
        assertThat(Duration.ofNanos(closedAtNanos.get(pair) - shutdownBegan))
            .as("closed at the drain deadline, not before")
            .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void aReloadWithAListenerHostThatDoesNotResolveIsRejectedAndBindsNothing() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      int port = freePort();
      try (ProxyService service = start(file)) {
        Files.writeString(
            file,
            config("c0", "64KiB", "1h", upstream.address())
                .replace(
                    "listeners:\n",
                    """
                    listeners:
                      - {name: good, address: "127.0.0.1:%d", cluster: c0}
                      - {name: bad, address: "nowhere.invalid:7000", cluster: c0}
                    """
                        .formatted(port)));
        for (int attempt = 1; attempt <= 3; attempt++) {
          assertThat(service.reload("test")).isFalse();
          assertThat(service.failedReloads()).isEqualTo(attempt);
          assertThat(service.status().read().reloads().lastError())
              .contains("listeners[1].address", "nowhere.invalid");
          assertThat(accepts(port)).as("the good listener left bound").isFalse();
          assertThat(service.runtime().listeners())
              .extracting(ListenerRuntime::name)
              .containsExactly("front");
        }
        try (Socket client = connect(service);
            Socket server = upstream.next()) {
          roundTrip(client, server, 'r');
        }
      }
    }
  }

  @Test
  void aBindThatFailsUncheckedUnbindsWhatTheReloadBoundAndChangesNothing() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config("c0", "64KiB", "1h", upstream.address()));
      int port = freePort();
      try (ProxyService service = start(file)) {
        ProxyRuntime runtime = service.runtime();
        ProxyConfig running = runtime.config();
        // Past the configuration check (the name stopped resolving after it, say).
        ProxyConfig read =
            ConfigReader.read(
                config("c0", "64KiB", "1h", upstream.address())
                    .replace(
                        "listeners:\n",
                        """
                        listeners:
                          - {name: good, address: "127.0.0.1:%d", cluster: c0}
                          - {name: bad, address: "127.0.0.1:0", cluster: c0}
                        """
                            .formatted(port)),
                "next.yaml",
                dir);
        List<ListenerConfig> listeners = new ArrayList<>();
        for (ListenerConfig l : read.listeners()) {
          listeners.add(l.name().equals("bad") ? unresolvable(l) : l);
        }
        ProxyConfig next =
            new ProxyConfig(
                listeners,
                read.clusters(),
                read.maxBytesInFlight(),
                read.drainTimeout(),
                read.admin(),
                read.accessLog(),
                read.source());
        for (int attempt = 1; attempt <= 2; attempt++) {
          assertThatThrownBy(() -> runtime.reload(next))
              .isInstanceOf(ConfigException.class)
              .hasMessageContaining("listeners.bad.address")
              .hasMessageContaining("nowhere.invalid");
          assertThat(accepts(port)).as("the good listener left bound").isFalse();
          assertThat(runtime.config()).isSameAs(running);
          assertThat(runtime.listeners())
              .extracting(ListenerRuntime::name)
              .containsExactly("front");
        }
        try (Socket client = connect(service);
            Socket server = upstream.next()) {
          roundTrip(client, server, 'u');
        }
      }
    }
  }

  @Test
  void aListenerCertificateRenewedInPlaceIsServedAfterAReload() throws Exception {
    TestPki pki = TestPki.get();
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      Path cert = Files.copy(pki.serverCert, dir.resolve("listener.pem"));
      Path key = Files.copy(pki.serverKey, dir.resolve("listener.key"));
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: front
              address: 127.0.0.1:0
              cluster: c0
              tls: {certificates: [{cert: "%s", key: "%s"}]}
          clusters:
            - {name: c0, upstreams: [{address: "%s"}]}
          """
              .formatted(cert, key, upstream.address()));
      try (ProxyService service = start(file)) {
        InetSocketAddress front =
            (InetSocketAddress) service.runtime().listener("front").boundAddress();
        assertThat(ServedCertificate.subject(front)).contains("CN=localhost");
        // Same paths, new contents: the certificate for other.test.
        Files.copy(pki.otherCert, cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(pki.otherKey, key, StandardCopyOption.REPLACE_EXISTING);
        assertThat(service.reload("test")).isTrue();
        assertThat(ServedCertificate.subject(front)).contains("CN=other.test");
      }
    }
  }

  private static ListenerConfig unresolvable(ListenerConfig l) {
    return new ListenerConfig(
        l.name(),
        new Endpoint.Tcp("nowhere.invalid", 7000),
        l.route(),
        l.tls(),
        l.maxConnections(),
        l.timeouts(),
        l.reads(),
        l.limits(),
        l.proxyProtocol());
  }
}
