package dev.sluice.proxy.admin;

import static dev.sluice.proxy.testing.AdminClient.series;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The access log, as a file a log shipper reads: one JSON line per pair with the client's address
 * and port, the upstream, SNI and ALPN, the bytes each way and the close reason; a refused connect
 * says why; on an HTTP listener one line per request too, checked against what curl says it sent
 * and got, with the request-duration histogram counting the same requests; lines survive a
 * logrotate-style move and reopen; a reload can move the log.
 */
class AccessLogTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  private String config(String echo, int dead, String accessLog) {
    return """
        listeners:
          - {name: plain, address: 127.0.0.1:0, cluster: app}
          - name: secure
            address: 127.0.0.1:0
            cluster: app
            tls: {certificates: [{cert: "%s", key: "%s"}], alpn: [mqtt, http/1.1]}
          - {name: broken, address: 127.0.0.1:0, cluster: gone}
        clusters:
          - {name: app, upstreams: [{address: "%s"}]}
          - {name: gone, upstreams: [{address: "127.0.0.1:%d"}], retries: {tries: 1}}
        accessLog: %s
        admin: {address: 127.0.0.1:0}
        """
        .formatted(pki.serverCert, pki.serverKey, echo, dead, accessLog);
  }

  @Test
  void eachClosedPairIsOneJsonLineWithWhatAnOperatorAsks() throws Exception {
    Path log = dir.resolve("access.log");
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyService service = start(config(echoAddress(echo), deadPort(), "{path: access.log}"))) {
      SocketAddress plain = service.runtime().listener("plain").boundAddress();
      int clientPort;
      try (Socket client = new Socket()) {
        client.connect(plain);
        clientPort = client.getLocalPort();
        client.getOutputStream().write(new byte[3000]);
        client.shutdownOutput();
        assertThat(client.getInputStream().readAllBytes()).hasSize(3000);
      }
      try (SSLSocket tls = tlsClient(service.runtime().listener("secure").boundAddress())) {
        tls.getOutputStream().write(new byte[10]);
        tls.getOutputStream().flush();
        assertThat(tls.getInputStream().readNBytes(10)).hasSize(10);
      }
      try (Socket refused = new Socket()) {
        refused.connect(service.runtime().listener("broken").boundAddress());
        drain(refused);
      }
      List<Map<String, Object>> lines = awaitLines(log, 3);
      Map<String, Object> first = byListener(lines, "plain");
      assertThat(first.get("listener")).isEqualTo("plain");
      assertThat(first.get("client")).isEqualTo("127.0.0.1:" + clientPort);
      assertThat(first.get("cluster")).isEqualTo("app");
      assertThat(first.get("upstream")).isEqualTo(echoAddress(echo));
      assertThat(number(first, "bytes_from_client")).isEqualTo(3000);
      assertThat(number(first, "bytes_from_upstream")).isEqualTo(3000);
      assertThat(first.get("cause")).isEqualTo("client_eof");
      assertThat(number(first, "connect_attempts")).isEqualTo(1);
      assertThat(((Number) first.get("duration_ms")).doubleValue()).isPositive();
      assertThat(first.get("time").toString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");

      // The TLS pair ends when its upstream has followed the client's close, which may be after
      // the refused connect of the next client: its line is found by listener, not by position.
      Map<String, Object> secure = byListener(lines, "secure");
      assertThat(secure.get("listener")).isEqualTo("secure");
      assertThat(secure.get("sni")).isEqualTo("localhost");
      assertThat(secure.get("alpn")).isEqualTo("mqtt");
      assertThat(number(secure, "bytes_from_client")).isEqualTo(10);

      Map<String, Object> refused = byListener(lines, "broken");
      assertThat(refused.get("listener")).isEqualTo("broken");
      assertThat(refused.get("cause")).isEqualTo("connect_refused");
      assertThat(refused.get("detail").toString()).isNotBlank();
      assertThat(refused.get("connect_ms")).isNull();
      assertThat(number(refused, "bytes_from_client")).isZero();

      Map<String, Double> m = new AdminClient(service.admin().address()).scrape();
      assertThat(m.get("sluice_access_log_lines_total")).isEqualTo(3.0);
      assertThat(m.get("sluice_access_log_dropped_total")).isEqualTo(0.0);
    }
  }

  /**
   * An HTTP listener in front of a JDK HTTP server (cluster web) and a dead port (cluster gone),
   * and one that waits 300 ms for a request head.
   */
  private static String httpConfig(int web, int dead) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            protocol: http
            cluster: web
            http: {routes: [{host: dead.test, cluster: gone}]}
          - {name: slow, address: 127.0.0.1:0, protocol: http, cluster: web,
             timeouts: {requestHead: 300ms}}
        clusters:
          - {name: web, upstreams: [{address: "127.0.0.1:%d"}]}
          - {name: gone, upstreams: [{address: "127.0.0.1:%d"}], retries: {tries: 1}}
        accessLog: {path: access.log}
        admin: {address: 127.0.0.1:0}
        """
        .formatted(web, dead);
  }

  /**
   * What curl says of each transfer: status, bytes sent (head and body), of them the body, and the
   * response's head (interim ones included) and body bytes.
   */
  private static final String CURL_SIZES =
      "%{http_code} %{size_request} %{size_upload} %{size_header} %{size_download}\\n";

  private static HttpServer httpUpstream() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("got " + exchange.getRequestBody().readAllBytes().length + " B\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
          exchange.sendResponseHeaders(200, body.length);
          try (var out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }

  private static int httpPort(ProxyService service) {
    return httpPort(service, "front");
  }

  private static int httpPort(ProxyService service, String listener) {
    return ((InetSocketAddress) service.runtime().listener(listener).boundAddress()).getPort();
  }

  @Test
  void anHttpListenerLogsEachRequestOfAKeepAliveConnection() throws Exception {
    Path log = dir.resolve("access.log");
    HttpServer web = httpUpstream();
    try (ProxyService service = start(httpConfig(web.getAddress().getPort(), deadPort()))) {
      String base = "http://127.0.0.1:" + httpPort(service);
      Path form = dir.resolve("form");
      Files.write(form, new byte[5000]);
      Commands.Result curl =
          Commands.run(
              List.of(
                  "curl",
                  "-s",
                  "-o",
                  dir.resolve("a").toString(),
                  "-w",
                  CURL_SIZES,
                  base + "/a?x=1",
                  "--next",
                  "-s",
                  "-o",
                  dir.resolve("b").toString(),
                  "-w",
                  CURL_SIZES,
                  "--data-binary",
                  "@" + form,
                  base + "/form"),
              "");
      assertThat(curl.exit()).as(curl.output()).isZero();
      long[][] sizes = sizes(curl.output(), 2);

      List<Map<String, Object>> lines = awaitLines(log, 3);
      List<Map<String, Object>> requests = ofKind(lines, "request");
      assertThat(requests).hasSize(2);
      Map<String, Object> get = requests.get(0);
      assertThat(get)
          .containsEntry("listener", "front")
          .containsEntry("method", "GET")
          .containsEntry("host", "127.0.0.1:" + httpPort(service))
          .containsEntry("path", "/a?x=1")
          .containsEntry("version", "HTTP/1.1")
          .containsEntry("status", 200)
          .containsEntry("cluster", "web")
          .containsEntry("upstream", "127.0.0.1:" + web.getAddress().getPort())
          .containsEntry("cause", null);
      assertThat(number(get, "request_bytes")).isEqualTo(sizes[0][1]);
      assertThat(number(get, "response_bytes")).isEqualTo(sizes[0][3] + sizes[0][4]);
      assertThat(millis(get, "upstream_ms")).isLessThanOrEqualTo(millis(get, "duration_ms"));
      Map<String, Object> post = requests.get(1);
      assertThat(post)
          .containsEntry("method", "POST")
          .containsEntry("path", "/form")
          .containsEntry("status", 200);
      assertThat(sizes[1][2]).isEqualTo(5000);
      // curl's size_request counts the head and the body it uploaded, as request_bytes does.
      assertThat(number(post, "request_bytes")).isEqualTo(sizes[1][1]);
      assertThat(number(post, "request_bytes")).isGreaterThan(5000);
      assertThat(number(post, "response_bytes")).isEqualTo(sizes[1][3] + sizes[1][4]);
      assertThat(post.get("client")).isEqualTo(get.get("client")); // one connection
      Map<String, Object> connection = ofKind(lines, "connection").getFirst();
      assertThat(connection)
          .containsEntry("requests", 2)
          .containsEntry("client", get.get("client"));

      AdminClient admin = new AdminClient(service.admin().address());
      String[] webRoute = {"listener", "front", "route", "web"};
      Map<String, Double> m = admin.scrape();
      assertThat(m.get(series("sluice_http_request_duration_seconds_count", webRoute)))
          .isEqualTo(2.0);
      assertThat(m.get(series("sluice_http_request_duration_seconds_sum", webRoute))).isPositive();
      assertThat(
              m.get(
                  series(
                      "sluice_http_request_duration_seconds_bucket",
                      "listener",
                      "front",
                      "route",
                      "web",
                      "le",
                      "+Inf")))
          .isEqualTo(2.0);
      assertThat(
              m.get(
                  series(
                      "sluice_http_responses_total",
                      "listener",
                      "front",
                      "route",
                      "web",
                      "status",
                      "2xx")))
          .isEqualTo(2.0);
    } finally {
      web.stop(0);
    }
  }

  @Test
  void theProxysOwnAnswersGetRequestLinesWithTheirCause() throws Exception {
    Path log = dir.resolve("access.log");
    HttpServer web = httpUpstream();
    try (ProxyService service = start(httpConfig(web.getAddress().getPort(), deadPort()))) {
      Commands.Result curl =
          Commands.run(
              List.of(
                  "curl",
                  "-s",
                  "-o",
                  dir.resolve("a").toString(),
                  "-w",
                  CURL_SIZES,
                  "-H",
                  "Host: dead.test",
                  "http://127.0.0.1:" + httpPort(service) + "/down"),
              "");
      long[] refused = sizes(curl.output(), 1)[0];
      assertThat(refused[0]).as(curl.output()).isEqualTo(502);
      byte[] partial =
          "GET /slow HTTP/1.1\r\nHost: x\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      try (Socket slow = new Socket(InetAddress.getLoopbackAddress(), httpPort(service, "slow"))) {
        slow.setSoTimeout((int) Await.PATIENCE.toMillis());
        slow.getOutputStream().write(partial);
        assertThat(
                new String(
                    slow.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.US_ASCII))
            .startsWith("HTTP/1.1 408 ");
      }

      List<Map<String, Object>> lines = awaitLines(log, 4);
      Map<String, Object> badGateway = byStatus(ofKind(lines, "request"), 502);
      assertThat(badGateway)
          .containsEntry("listener", "front")
          .containsEntry("method", "GET")
          .containsEntry("path", "/down")
          .containsEntry("cluster", "gone")
          .containsEntry("upstream", null)
          .containsEntry("upstream_ms", null)
          .containsEntry("cause", "connect_refused");
      assertThat(badGateway.get("detail").toString()).contains("refused");
      assertThat(number(badGateway, "request_bytes")).isEqualTo(refused[1]);
      assertThat(number(badGateway, "response_bytes")).isEqualTo(refused[3] + refused[4]);
      Map<String, Object> timeout = byStatus(ofKind(lines, "request"), 408);
      assertThat(timeout)
          .containsEntry("listener", "slow")
          .containsEntry("method", null)
          .containsEntry("path", null)
          .containsEntry("cluster", null)
          .containsEntry("upstream_ms", null)
          .containsEntry("cause", "request_head_timeout");
      assertThat(number(timeout, "request_bytes")).isEqualTo(partial.length);
      assertThat(ofKind(lines, "connection"))
          .extracting(l -> l.get("requests"))
          .containsExactly(1, 1);

      Map<String, Double> m = new AdminClient(service.admin().address()).scrape();
      // The 502 was routed (cluster gone); the 408's head never came whole (route none).
      for (String[] expected : new String[][] {{"front", "gone", "5xx"}, {"slow", "none", "4xx"}}) {
        String[] labels = {"listener", expected[0], "route", expected[1]};
        assertThat(m.get(series("sluice_http_request_duration_seconds_count", labels)))
            .as(expected[0])
            .isEqualTo(1.0);
        assertThat(
                m.get(
                    series(
                        "sluice_http_responses_total",
                        "listener",
                        expected[0],
                        "route",
                        expected[1],
                        "status",
                        expected[2])))
            .as(expected[0])
            .isEqualTo(1.0);
      }
    } finally {
      web.stop(0);
    }
  }

  /** Each of curl's {@link #CURL_SIZES} lines, as numbers. */
  private static long[][] sizes(String output, int transfers) {
    List<String> lines = output.lines().toList();
    assertThat(lines).as(output).hasSize(transfers);
    return lines.stream()
        .map(l -> java.util.Arrays.stream(l.split(" ")).mapToLong(Long::parseLong).toArray())
        .toArray(long[][]::new);
  }

  private static List<Map<String, Object>> ofKind(List<Map<String, Object>> lines, String kind) {
    return lines.stream().filter(l -> kind.equals(l.get("kind"))).toList();
  }

  private static Map<String, Object> byStatus(List<Map<String, Object>> lines, int status) {
    return lines.stream()
        .filter(l -> Integer.valueOf(status).equals(l.get("status")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line with status " + status + ": " + lines));
  }

  private static double millis(Map<String, Object> line, String field) {
    return ((Number) line.get(field)).doubleValue();
  }

  @Test
  void aConnectionRefusedAtAcceptIsLoggedWithItsClientAndCause() throws Exception {
    Path log = dir.resolve("access.log");
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyService service =
            start(
                """
                listeners:
                  - {name: full, address: 127.0.0.1:0, cluster: app, maxConnections: 1}
                  - {name: rate, address: 127.0.0.1:0, cluster: app,
                     limits: {connectionsPerSecond: 1}}
                clusters:
                  - {name: app, upstreams: [{address: "%s"}]}
                accessLog: {path: access.log}
                """
                    .formatted(echoAddress(echo)))) {
      int fullPort;
      try (Socket held = new Socket()) {
        held.connect(service.runtime().listener("full").boundAddress());
        assertThat(echoesOneByte(held)).isTrue();
        try (Socket refused = new Socket()) {
          refused.connect(service.runtime().listener("full").boundAddress());
          fullPort = refused.getLocalPort();
          assertThat(echoesOneByte(refused)).as("refused: one connection is open").isFalse();
        }
      }
      // One new connection a second: the next ones in the same second are refused.
      SocketAddress rate = service.runtime().listener("rate").boundAddress();
      List<Integer> refusedPorts = new ArrayList<>();
      Await.until(
          () -> {
            try (Socket client = new Socket()) {
              client.connect(rate);
              if (!echoesOneByte(client)) {
                refusedPorts.add(client.getLocalPort());
              }
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            return !refusedPorts.isEmpty();
          },
          () -> "a connection refused for its rate");
      Await.until(
          () -> lines(log).stream().anyMatch(l -> "rate_limited".equals(l.get("cause"))),
          () -> "the rate_limited line in " + lines(log));
      Map<String, Object> limit = byCause(lines(log), "limit_reached");
      assertThat(limit.get("listener")).isEqualTo("full");
      assertThat(limit.get("client")).isEqualTo("127.0.0.1:" + fullPort);
      assertThat(limit.get("detail").toString()).contains("has 1 connections");
      Map<String, Object> limited = byCause(lines(log), "rate_limited");
      assertThat(limited.get("listener")).isEqualTo("rate");
      assertThat(limited.get("client")).isEqualTo("127.0.0.1:" + refusedPorts.getFirst());
    }
  }

  /** Whether the proxy echoes a byte: false when it closed or reset the connection instead. */
  private static boolean echoesOneByte(Socket s) throws IOException {
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    try {
      s.getOutputStream().write('x');
      return s.getInputStream().read() == 'x';
    } catch (java.net.SocketException reset) {
      return false;
    }
  }

  private static Map<String, Object> byCause(List<Map<String, Object>> lines, String cause) {
    return lines.stream()
        .filter(l -> cause.equals(l.get("cause")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line with cause " + cause + ": " + lines));
  }

  @Test
  void afterLogrotateMovesTheFileAReopenWritesANewOneAndLosesNoLine() throws Exception {
    Path log = dir.resolve("access.log");
    Path rotated = dir.resolve("access.log.1");
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyService service = start(config(echoAddress(echo), deadPort(), "{path: access.log}"))) {
      SocketAddress plain = service.runtime().listener("plain").boundAddress();
      echoOnce(plain, 1);
      echoOnce(plain, 2);
      awaitLines(log, 2);
      Files.move(log, rotated); // what logrotate does before it signals
      echoOnce(plain, 3); // written to the moved file: the log still has it open
      Await.until(() -> lines(rotated).size() == 3, () -> "the third line in the moved file");
      service.accessLog().reopen(); // what SIGUSR1 does
      Await.until(() -> Files.exists(log), () -> "the log reopened at its path");
      echoOnce(plain, 4);
      echoOnce(plain, 5);
      List<Map<String, Object>> fresh = awaitLines(log, 2);
      // Two pairs may end on two loops (each accepts its own): their lines in either order.
      assertThat(fresh)
          .extracting(l -> number(l, "bytes_from_client"))
          .containsExactlyInAnyOrder(4L, 5L);
      assertThat(lines(rotated))
          .extracting(l -> number(l, "bytes_from_client"))
          .containsExactlyInAnyOrder(1L, 2L, 3L);
    }
  }

  @Test
  void aReloadMovesTheLogAndARejectedOneKeepsIt() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      int dead = deadPort();
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(echoAddress(echo), dead, "{path: first.log}"));
      try (ProxyService service = ProxyService.start(ConfigReader.read(file), file, (l, p) -> {})) {
        SocketAddress plain = service.runtime().listener("plain").boundAddress();
        echoOnce(plain, 1);
        awaitLines(dir.resolve("first.log"), 1);
        Files.writeString(file, config(echoAddress(echo), dead, "{path: no/such/dir/x.log}"));
        assertThat(service.reload("test")).isFalse();
        echoOnce(plain, 2);
        awaitLines(dir.resolve("first.log"), 2);
        Files.writeString(file, config(echoAddress(echo), dead, "{path: second.log}"));
        assertThat(service.reload("test")).isTrue();
        echoOnce(plain, 3);
        assertThat(awaitLines(dir.resolve("second.log"), 1).getFirst())
            .containsEntry("bytes_from_client", 3);
        assertThat(lines(dir.resolve("first.log"))).hasSize(2);
      }
    }
  }

  @Test
  void aLogThatCannotBeWrittenDropsAndCountsLinesAndItsWriterCarriesOn() throws Exception {
    Path full = Path.of("/dev/full"); // every write fails with ENOSPC, as a full disk's would
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(full), "no /dev/full here");
    AccessLog log = AccessLog.open(new dev.sluice.proxy.config.AccessLogTarget.File(full));
    try {
      for (int i = 0; i < 3; i++) {
        log.offer("{\"line\":" + i + "}");
      }
      Await.until(() -> log.dropped() >= 1, () -> "a dropped line, counted");
      long before = log.dropped();
      log.offer("{\"line\":3}");
      Await.until(
          () -> log.dropped() > before, () -> "the writer still running, still counting drops");
    } finally {
      log.close();
    }
  }

  @Test
  void aMistakenAccessLogIsRefusedWithItsLineAndReason() {
    for (String[] bad :
        new String[][] {
          {"stderr", "'stderr' is not stdout; write {path: FILE} for a file"},
          {"{path: \"\"}", "is empty"},
          {"{path: missing/x.log}", "no directory"},
          {"{path: .}", "is a directory"},
          {"{file: x.log}", "unknown field"},
        }) {
      String yaml =
          """
          listeners: [{name: a, address: 127.0.0.1:0, cluster: c}]
          clusters: [{name: c, upstreams: [{address: 127.0.0.1:1}]}]
          accessLog: %s
          """
              .formatted(bad[0]);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> ConfigReader.read(yaml, "t.yaml", dir))
          .as(bad[0])
          .hasMessageContaining("t.yaml:3")
          .hasMessageContaining(bad[1]);
    }
  }

  // ---- helpers ----

  private ProxyService start(String yaml) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, yaml);
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  private static String echoAddress(EchoServer echo) {
    return Endpoint.format(echo.address());
  }

  private static int deadPort() throws IOException {
    return FreePorts.loopback();
  }

  private static void echoOnce(SocketAddress to, int bytes) throws Exception {
    EchoClient.Result r = EchoClient.echo(to, EchoClient.Security.PLAIN, null, bytes, bytes);
    assertThat(r.ok()).as(r.failure()).isTrue();
  }

  private SSLSocket tlsClient(SocketAddress to) throws Exception {
    InetSocketAddress inet = (InetSocketAddress) to;
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, pki.caTrust().trustManagers(), null);
    SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket(inet.getAddress(), inet.getPort());
    SSLParameters p = socket.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName("localhost")));
    p.setApplicationProtocols(new String[] {"mqtt"});
    socket.setSSLParameters(p);
    socket.startHandshake();
    return socket;
  }

  private static void drain(Socket s) {
    try {
      s.getInputStream().readAllBytes();
    } catch (IOException reset) {
      // a refused pair may be reset: either way it ended
    }
  }

  private static Map<String, Object> byListener(List<Map<String, Object>> lines, String name) {
    return lines.stream()
        .filter(l -> name.equals(l.get("listener")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line of listener " + name + ": " + lines));
  }

  private static long number(Map<String, Object> line, String field) {
    return ((Number) line.get(field)).longValue();
  }

  private static List<Map<String, Object>> awaitLines(Path log, int count) {
    Await.until(
        () -> lines(log).size() >= count, () -> count + " lines in " + log + ": " + lines(log));
    return lines(log);
  }

  /** Each line parsed on its own, as a shipper would (YAML 1.2 reads JSON). */
  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> lines(Path log) {
    List<Map<String, Object>> parsed = new ArrayList<>();
    if (!Files.exists(log)) {
      return parsed;
    }
    try {
      for (String line : Files.readAllLines(log)) {
        assertThat(line).startsWith("{").endsWith("}");
        parsed.add(
            (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(line));
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return parsed;
  }
}
