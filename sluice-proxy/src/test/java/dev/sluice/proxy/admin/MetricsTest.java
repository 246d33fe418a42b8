package dev.sluice.proxy.admin;

import static dev.sluice.proxy.testing.AdminClient.series;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * /metrics scraped over HTTP after traffic the test made: every figure checked against what the
 * test knows it sent, opened and broke.
 */
class MetricsTest {
  private static final int STREAMED_PIECES = 16;

  @TempDir Path dir;

  private final List<Pair> closed = new CopyOnWriteArrayList<>();

  private static String config(String echo, int deadPort, String idle) {
    return """
        listeners:
          - {name: front, address: 127.0.0.1:0, cluster: app}
          - {name: broken, address: 127.0.0.1:0, cluster: gone}
        clusters:
          - name: app
            upstreams: [{address: "%s"}]
          - name: gone
            upstreams: [{address: "127.0.0.1:%d"}]
            retries: {tries: 1}
        buffers: {maxBytesInFlight: 1MiB}
        timeouts: {idle: %s}
        admin: {address: 127.0.0.1:0}
        """
        .formatted(echo, deadPort, idle);
  }

  private static int closedPort() throws Exception {
    return FreePorts.loopback(); // nothing listens there once closed
  }

  @Test
  void theFiguresMatchTheTrafficTheTestMade() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      String echoAddress = Endpoint.format(echo.address());
      int dead = closedPort();
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(echoAddress, dead, "1h"));
      try (ProxyService service =
          ProxyService.start(ConfigReader.read(file), file, (l, pair) -> closed.add(pair))) {
        AdminClient admin = new AdminClient(service.admin().address());
        SocketAddress front = service.runtime().listener("front").boundAddress();
        long sent = 0;
        for (int i = 1; i <= 5; i++) {
          EchoClient.Result r =
              EchoClient.echo(front, EchoClient.Security.PLAIN, null, 1000L * i, i);
          assertThat(r.ok()).as(r.failure()).isTrue();
          sent += 1000L * i;
        }
        try (EchoClient.Streams held = EchoClient.open(front, EchoClient.Security.PLAIN, null);
            var refused =
                EchoClient.open(
                    service.runtime().listener("broken").boundAddress(),
                    EchoClient.Security.PLAIN,
                    null)) {
          held.out.write(new byte[100]);
          held.out.flush();
          assertThat(held.in.readNBytes(100)).hasSize(100);
          // Then a stream: reads of a streaming leg are spliced on epoll.
          byte[] piece = new byte[64 * 1024];
          for (int i = 0; i < STREAMED_PIECES; i++) {
            held.out.write(piece);
            held.out.flush();
            assertThat(held.in.readNBytes(piece.length)).hasSize(piece.length);
          }
          long heldBytes = 100 + (long) STREAMED_PIECES * piece.length;
          assertThat(endOf(refused)).as("the refused pair is closed").isTrue();
          Await.until(() -> closed.size() == 6, () -> closed.size() + " of 6 pairs ended");

          Map<String, Double> m = admin.scrape();
          assertThat(m.get(series("sluice_connections_accepted_total", "listener", "front")))
              .isEqualTo(6.0);
          assertThat(m.get(series("sluice_connections_accepted_total", "listener", "broken")))
              .isEqualTo(1.0);
          assertThat(m.get(series("sluice_connections_active", "listener", "front")))
              .isEqualTo(1.0);
          assertThat(m.get(series("sluice_connections_active", "listener", "broken")))
              .isEqualTo(0.0);
          assertThat(
                  m.get(
                      series(
                          "sluice_connections_closed_total",
                          "listener",
                          "front",
                          "cause",
                          "client_eof")))
              .isEqualTo(5.0);
          assertThat(
                  m.get(
                      series(
                          "sluice_connections_closed_total",
                          "listener",
                          "broken",
                          "cause",
                          "connect_refused")))
              .isEqualTo(1.0);
          assertThat(m.get(series("sluice_listener_received_bytes_total", "listener", "front")))
              .as("bytes from clients, the held pair's included while it is open")
              .isEqualTo(sent + heldBytes);
          assertThat(m.get(series("sluice_listener_sent_bytes_total", "listener", "front")))
              .isEqualTo(sent + heldBytes);

          String[] app = {"cluster", "app", "upstream", echoAddress};
          assertThat(m.get(series("sluice_upstream_connects_total", app))).isEqualTo(6.0);
          assertThat(m.get(series("sluice_upstream_connections_active", app))).isEqualTo(1.0);
          assertThat(m.get(series("sluice_upstream_sent_bytes_total", app)))
              .isEqualTo(sent + heldBytes);
          assertThat(m.get(series("sluice_upstream_received_bytes_total", app)))
              .isEqualTo(sent + heldBytes);
          assertThat(m.get(series("sluice_upstream_up", app))).isEqualTo(1.0);
          assertThat(
                  m.get(
                      series(
                          "sluice_upstream_state",
                          "cluster",
                          "app",
                          "upstream",
                          echoAddress,
                          "state",
                          "up")))
              .isEqualTo(1.0);
          assertThat(
                  m.get(
                      series(
                          "sluice_upstream_connect_failures_total",
                          "cluster",
                          "gone",
                          "upstream",
                          "127.0.0.1:" + dead)))
              .isEqualTo(1.0);
          assertThat(m.get(series("sluice_upstream_connect_duration_seconds_count", app)))
              .as("one connect time per pair that reached the upstream")
              .isEqualTo(6.0);
          assertThat(
                  m.get(
                      series(
                          "sluice_upstream_connect_duration_seconds_bucket",
                          "cluster",
                          "app",
                          "upstream",
                          echoAddress,
                          "le",
                          "+Inf")))
              .isEqualTo(6.0);
          assertThat(m.get(series("sluice_upstream_connect_duration_seconds_sum", app)))
              .isPositive();

          assertThat(m.get("sluice_in_flight_limit_bytes")).isEqualTo(1024.0 * 1024);
          assertThat(m.get("sluice_in_flight_bytes")).isEqualTo(0.0);
          assertThat(m.get(series("sluice_memory_bytes", "kind", "slab_reserved"))).isPositive();
          assertThat(m.get(series("sluice_memory_bytes", "kind", "handed_off"))).isEqualTo(0.0);
          int loops = service.runtime().group().loops().size();
          assertThat(
                  m.keySet().stream()
                      .filter(k -> k.startsWith("sluice_event_loop_longest_turn_seconds{")))
              .hasSize(loops);
          String transport = service.runtime().group().transport().id();
          for (dev.sluice.net.EventLoop loop : service.runtime().group().loops()) {
            assertThat(
                    m.get(
                        series(
                            "sluice_event_loop_info",
                            "loop",
                            loop.toString(),
                            "transport",
                            transport)))
                .isEqualTo(1.0);
          }
          long spliced = 0;
          for (dev.sluice.net.EventLoop loop : service.runtime().group().loops()) {
            String[] onLoop = {"loop", loop.toString()};
            assertThat(m.get(series("sluice_spliced_bytes_total", onLoop)))
                .isEqualTo((double) loop.bytesSpliced());
            assertThat(m.get(series("sluice_splice_copied_out_bytes_total", onLoop)))
                .isEqualTo((double) loop.bytesCopiedOutOfPipes());
            assertThat(m.get(series("sluice_splice_pool_empty_total", onLoop)))
                .as("one leg streams at a time: the loop's pool always has a pipe")
                .isZero();
            spliced += loop.bytesSpliced();
          }
          if (service.runtime().group().transport() == dev.sluice.net.Transport.EPOLL) {
            assertThat(spliced).as("bytes spliced").isPositive().isLessThanOrEqualTo(2 * heldBytes);
          } else {
            assertThat(spliced).as("bytes spliced").isZero();
          }
          assertThat(m.get(series("jvm_memory_used_bytes", "area", "heap"))).isPositive();
          assertThat(m.get(series("sluice_build_info", "version", dev.sluice.proxy.Version.NUMBER)))
              .isEqualTo(1.0);
          Await.until(
              () -> pairsOnLoops(admin) == 1.0,
              () -> "the loops' pair gauges add up to the held pair");
        }
      }
    }
  }

  /** Whether the connection ends (orderly or reset) with no byte. */
  private static boolean endOf(EchoClient.Streams s) {
    try {
      return s.in.read() == -1;
    } catch (java.io.IOException reset) {
      return true;
    }
  }

  private static double pairsOnLoops(AdminClient admin) {
    try {
      return admin.scrape().entrySet().stream()
          .filter(e -> e.getKey().startsWith("sluice_event_loop_pairs{"))
          .mapToDouble(Map.Entry::getValue)
          .sum();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void reloadsAreCountedAppliedAndRejected() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      String echoAddress = Endpoint.format(echo.address());
      int dead = closedPort();
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(echoAddress, dead, "1h"));
      try (ProxyService service =
          ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {})) {
        AdminClient admin = new AdminClient(service.admin().address());
        double startedAt =
            admin.scrape().get("sluice_config_last_reload_success_timestamp_seconds");
        Files.writeString(file, config(echoAddress, dead, "10m"));
        assertThat(service.reload("test")).isTrue();
        Files.writeString(file, "listeners: [");
        assertThat(service.reload("test")).isFalse();
        Map<String, Double> m = admin.scrape();
        assertThat(m.get(series("sluice_config_reloads_total", "result", "ok"))).isEqualTo(1.0);
        assertThat(m.get(series("sluice_config_reloads_total", "result", "failed"))).isEqualTo(1.0);
        assertThat(m.get("sluice_config_last_reload_success_timestamp_seconds"))
            .isGreaterThanOrEqualTo(startedAt);
      }
    }
  }

  @Test
  void namesFollowPrometheusConventionsAndOpenMetricsIsServedWhenAskedFor() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(Endpoint.format(echo.address()), closedPort(), "1h"));
      try (ProxyService service =
          ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {})) {
        AdminClient admin = new AdminClient(service.admin().address());
        HttpResponse<String> text = admin.get("/metrics");
        assertThat(text.headers().firstValue("Content-Type"))
            .get()
            .asString()
            .startsWith("text/plain; version=0.0.4");
        Matcher types = Pattern.compile("(?m)^# TYPE (sluice_\\S+) (\\S+)$").matcher(text.body());
        int families = 0;
        while (types.find()) {
          families++;
          String name = types.group(1);
          String type = types.group(2);
          assertThat(name).as("a lower-case snake_case name").matches("[a-z][a-z0-9_]*");
          if (type.equals("counter")) {
            assertThat(name).as("a counter's name").endsWith("_total");
          } else {
            assertThat(name).as("only counters end in _total").doesNotEndWith("_total");
          }
          if (name.contains("bytes") && !type.equals("counter")) {
            assertThat(name).as("a size in base units").endsWith("_bytes");
          }
        }
        assertThat(families).as("sluice metric families").isGreaterThan(20);

        HttpResponse<String> open =
            admin.send(
                HttpRequest.newBuilder(java.net.URI.create(admin.base() + "/metrics")),
                "application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(open.headers().firstValue("Content-Type"))
            .get()
            .asString()
            .startsWith("application/openmetrics-text");
        assertThat(open.body().strip()).endsWith("# EOF");
      }
    }
  }
}
