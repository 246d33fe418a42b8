package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.EventLoop;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.testing.Await;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The admin listener's pages over real HTTP: readiness as upstreams and the shutdown change it,
 * liveness when a loop is stuck, the runtime dump, the JSON model, and what it refuses.
 */
class AdminEndpointsTest {
  @TempDir Path dir;

  private static String config(String upstream) {
    return """
        listeners:
          - {name: front, address: 127.0.0.1:0, cluster: app}
        clusters:
          - name: app
            upstreams: [{address: "%s"}]
            healthCheck: {type: tcp, interval: 100ms, timeout: 100ms, rise: 1, fall: 1}
        timeouts: {drain: 30s}
        admin: {address: 127.0.0.1:0}
        """
        .formatted(upstream);
  }

  private ProxyService start(String yaml) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, yaml);
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  @Test
  void readyFollowsTheUpstreamsHealthAndTheShutdownWhileTheAdminStillAnswers() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1")) {
      ProxyService service = start(config(upstream.address()));
      try {
        AdminClient admin = new AdminClient(service.admin().address());
        assertThat(admin.get("/ready").statusCode()).isEqualTo(200);
        upstream.kill();
        Await.until(
            () -> status(admin, "/ready") == 503, () -> "not ready once the only upstream is down");
        assertThat(admin.get("/ready").body())
            .contains("cluster app has no upstream that takes connections");
        assertThat(admin.get("/live").statusCode())
            .as("down upstreams are not death")
            .isEqualTo(200);
        upstream.start();
        Await.until(() -> status(admin, "/ready") == 200, () -> "ready again once it is back");

        // A held pair keeps the drain going: meanwhile the proxy says it is not ready.
        try (EchoClient.Streams held =
            EchoClient.open(
                service.runtime().listener("front").boundAddress(),
                EchoClient.Security.PLAIN,
                null)) {
          held.out.write(1);
          held.out.flush();
          assertThat(held.in.read()).isEqualTo(1);
          CompletableFuture<Void> drained = CompletableFuture.runAsync(service::shutdownGracefully);
          Await.until(() -> status(admin, "/ready") == 503, () -> "not ready while shutting down");
          assertThat(admin.get("/ready").body()).contains("shutting down");
          held.shutdownOutput();
          held.in.readAllBytes();
          drained.get();
        }
      } finally {
        service.close();
      }
    }
  }

  @Test
  void aLoopStuckInACallbackIsNotLiveAndTheDumpSaysWhich() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1");
        ProxyService service = start(config(upstream.address()))) {
      AdminClient admin = new AdminClient(service.admin().address());
      assertThat(admin.get("/live").statusCode()).isEqualTo(200);
      EventLoop stuck = service.runtime().group().loops().getFirst();
      CountDownLatch release = new CountDownLatch(1);
      stuck.execute(
          () -> {
            try {
              release.await(); // a handler that blocks its loop
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      try {
        Await.until(() -> status(admin, "/live") == 503, () -> "not live while a loop is stuck");
        assertThat(admin.get("/live").body()).contains("loop " + stuck + " has not answered for");
        assertThat(admin.get("/dump").body())
            .contains("no answer within")
            .contains("the loop is stuck in a callback");
      } finally {
        release.countDown();
      }
      Await.until(() -> status(admin, "/live") == 200, () -> "live again once the loop runs");
      Await.until(
          () ->
              service.status().sampler().longestTurnNanos(stuck) > Duration.ofSeconds(1).toNanos(),
          () -> "the stall shows as the loop's longest turn");
    }
  }

  @Test
  void theDumpListsEachPairWithItsStateOnItsLoop() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1");
        ProxyService service = start(config(upstream.address()))) {
      AdminClient admin = new AdminClient(service.admin().address());
      var front = service.runtime().listener("front").boundAddress();
      try (EchoClient.Streams a = EchoClient.open(front, EchoClient.Security.PLAIN, null);
          EchoClient.Streams b = EchoClient.open(front, EchoClient.Security.PLAIN, null)) {
        for (EchoClient.Streams s : List.of(a, b)) {
          s.out.write(new byte[1234]);
          s.out.flush();
          assertThat(s.in.readNBytes(1234)).hasSize(1234);
        }
        String dump = admin.get("/dump").body();
        assertThat(dump).contains("group: " + service.runtime().group().loops().size() + " loops");
        for (EventLoop loop : service.runtime().group().loops()) {
          assertThat(dump).contains("loop " + loop + ": longest turn");
        }
        assertThat(dump.lines().filter(l -> l.contains("forwarding age"))).hasSize(2);
        assertThat(dump).contains("read 1234 B").contains("-> " + upstream.address());
        assertThat(dump).contains("front 127.0.0.1:").contains("2 open, 2 accepted");
        assertThat(dump).contains(upstream.address() + " up, 2 active, 2 connects, 0 failed");

        String none = admin.get("/dump?pairs=0").body();
        assertThat(none.lines().filter(l -> l.contains("forwarding age"))).isEmpty();
        assertThat(none).contains("more pairs");
        assertThat(admin.get("/dump?pairs=many").statusCode()).isEqualTo(400);
      }
    }
  }

  @Test
  void theJsonModelParsesAndCarriesTheSameFigures() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1");
        ProxyService service = start(config(upstream.address()))) {
      AdminClient admin = new AdminClient(service.admin().address());
      var front = service.runtime().listener("front").boundAddress();
      assertThat(EchoClient.echo(front, EchoClient.Security.PLAIN, null, 5000, 7).ok()).isTrue();
      Await.until(
          () -> service.runtime().listener("front").stats().openCount() == 0,
          () -> "the pair ended");
      HttpResponse<String> r = admin.get("/metrics.json");
      assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
      @SuppressWarnings("unchecked")
      Map<String, Object> status =
          (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(r.body());
      assertThat(status.get("version")).isEqualTo(dev.sluice.proxy.Version.NUMBER);
      @SuppressWarnings("unchecked")
      Map<String, Object> listener =
          ((List<Map<String, Object>>) status.get("listeners")).getFirst();
      assertThat(listener.get("name")).isEqualTo("front");
      assertThat(((Number) listener.get("accepted")).longValue()).isEqualTo(1);
      assertThat(((Number) listener.get("bytesFromClients")).longValue()).isEqualTo(5000);
      @SuppressWarnings("unchecked")
      Map<String, Object> closed = (Map<String, Object>) listener.get("closed");
      assertThat(((Number) closed.get("client_eof")).longValue()).isEqualTo(1);
      @SuppressWarnings("unchecked")
      Map<String, Object> readiness = (Map<String, Object>) status.get("readiness");
      assertThat(readiness.get("ready")).isEqualTo(true);
    }
  }

  @Test
  void onlyGetAndHeadOfKnownPagesAreServed() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1");
        ProxyService service = start(config(upstream.address()))) {
      AdminClient admin = new AdminClient(service.admin().address());
      HttpResponse<String> post = admin.method("POST", "/ready");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
      HttpResponse<String> head = admin.method("HEAD", "/metrics");
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      assertThat(admin.get("/nothing").statusCode()).isEqualTo(404);
      assertThat(admin.get("/metricsfoo").statusCode()).isEqualTo(404);
      assertThat(admin.get("/").body()).contains("<title>Sluice status</title>");
    }
  }

  @Test
  void anAdminAddressInUseFailsTheStartAndLeavesNothingBound() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1");
        java.net.ServerSocket taken =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      String yaml =
          config(upstream.address())
              .replace(
                  "admin: {address: 127.0.0.1:0}",
                  "admin: {address: 127.0.0.1:" + taken.getLocalPort() + "}")
              .replace(
                  "address: 127.0.0.1:0, cluster",
                  "address: 127.0.0.1:" + freePort() + ", cluster");
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, yaml);
      var config = ConfigReader.read(file);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> ProxyService.start(config, file, (l, pair) -> {}))
          .hasMessageContaining(
              "cannot bind the admin listener on 127.0.0.1:" + taken.getLocalPort());
      int front =
          ((dev.sluice.proxy.config.Endpoint.Tcp) config.listeners().getFirst().address()).port();
      // The proxy's listener was closed again: its port is free.
      try (java.net.ServerSocket again =
          new java.net.ServerSocket(front, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
        assertThat(again.getLocalPort()).isEqualTo(front);
      }
    }
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static int status(AdminClient admin, String path) {
    try {
      return admin.get(path).statusCode();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
