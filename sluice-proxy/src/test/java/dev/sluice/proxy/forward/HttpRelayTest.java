package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP/1 path end to end on loopback: curl as the client, the JDK's HTTP server as the
 * upstreams (one per cluster), and raw sockets for what curl will not send (pipelining, smuggling
 * attempts, a head that never ends).
 */
class HttpRelayTest {
  @TempDir Path dir;

  private final List<HttpServer> servers = new ArrayList<>();

  /** What each upstream saw: "cluster method path x-forwarded-for x-debug". */
  private final List<String> seen = new CopyOnWriteArrayList<>();

  private final AtomicInteger requestsSeen = new AtomicInteger();
  private InetSocketAddress web;
  private InetSocketAddress api;

  @BeforeEach
  void upstreams() throws IOException {
    web = serve("web");
    api = serve("api");
  }

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  private InetSocketAddress serve(String name) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          requestsSeen.incrementAndGet();
          String path = exchange.getRequestURI().getPath();
          if (path.startsWith("/big/")) { // a body of that many bytes
            byte[] big = new byte[Integer.parseInt(path.substring("/big/".length()))];
            java.util.Arrays.fill(big, (byte) 'b');
            exchange.sendResponseHeaders(200, big.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(big);
            }
            return;
          }
          seen.add(
              name
                  + " "
                  + exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("X-Forwarded-For")
                  + " "
                  + exchange.getRequestHeaders().getFirst("X-Debug")
                  + " "
                  + exchange.getRequestHeaders().getFirst("X-Env"));
          reply(exchange, name + " got " + body.length + " B");
        });
    server.start();
    servers.add(server);
    return server.getAddress();
  }

  private static void reply(HttpExchange exchange, String text) throws IOException {
    byte[] bytes = (text + "\n").getBytes(StandardCharsets.US_ASCII);
    exchange.getResponseHeaders().add("X-Upstream-Secret", "yes");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private ProxyFixture proxy(String timeouts) throws Exception {
    return ProxyFixture.start(yaml(timeouts), dir);
  }

  private String yaml(String timeouts) {
    return """
        %s
        listeners:
          - name: front
            address: 127.0.0.1:0
            protocol: http
            cluster: web
            http:
              routes:
                - {host: api.test, pathPrefix: /v1/, cluster: api}
              requestHeaders: {set: {X-Env: prod}, remove: [X-Debug]}
              responseHeaders: {remove: [X-Upstream-Secret]}
              maxHeaderBytes: 1KiB
        clusters:
          - name: web
            upstreams: [{address: "127.0.0.1:%d"}]
          - name: api
            upstreams: [{address: "127.0.0.1:%d"}]
        """
        .formatted(timeouts, web.getPort(), api.getPort());
  }

  private static int port(ProxyFixture proxy) {
    return ((InetSocketAddress) proxy.address("front")).getPort();
  }

  private static Commands.Result run(List<String> command) throws Exception {
    return Commands.run(command, "");
  }

  @Test
  void keepAliveRequestsAreRewrittenBothWays() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      String url = "http://127.0.0.1:" + port(proxy) + "/a";
      Commands.Result curl =
          run(
              List.of(
                  "curl",
                  "-sv",
                  "-H",
                  "X-Forwarded-For: 6.6.6.6",
                  "-H",
                  "X-Debug: 1",
                  url,
                  url + "?second"));
      assertThat(curl.exit()).as(curl.output()).isZero();
      assertThat(curl.output()).contains("web got 0 B").containsPattern("(?i)re-?us");
      assertThat(curl.output()).doesNotContainIgnoringCase("X-Upstream-Secret");
      assertThat(seen)
          .containsExactly(
              "web GET /a 127.0.0.1 null prod", "web GET /a?second 127.0.0.1 null prod");
      assertThat(proxy.awaitClosed(1)).hasSize(1); // both requests on one client connection
      assertThat(proxy.listener("front").stats().httpResponses())
          .isEqualTo(java.util.Map.of("web", java.util.Map.of("2xx", 2L)));
    }
  }

  @Test
  void requestsAreRoutedByHostAndPath() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      String base = "http://127.0.0.1:" + port(proxy);
      Commands.Result toApi =
          run(List.of("curl", "-s", "-H", "Host: api.test", base + "/v1/users"));
      Commands.Result toWeb =
          run(List.of("curl", "-s", "-H", "Host: api.test", base + "/v2/users"));
      assertThat(toApi.output()).isEqualTo("api got 0 B\n");
      assertThat(toWeb.output()).isEqualTo("web got 0 B\n");
    }
  }

  @Test
  void aChunkedUploadStreamsThrough() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      Path body = dir.resolve("body");
      java.nio.file.Files.write(body, new byte[300_000]);
      Commands.Result curl =
          run(
              List.of(
                  "curl",
                  "-s",
                  "-H",
                  "Transfer-Encoding: chunked",
                  "-T",
                  body.toString(),
                  "http://127.0.0.1:" + port(proxy) + "/up"));
      assertThat(curl.output()).isEqualTo("web got 300000 B\n");
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  @Test
  void expectContinueWaitsForTheUpstreamsInterimResponse() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      Path body = dir.resolve("form");
      java.nio.file.Files.write(body, new byte[5000]);
      Commands.Result curl =
          run(
              List.of(
                  "curl",
                  "-sv",
                  "--expect100-timeout",
                  "30",
                  "-H",
                  "Expect: 100-continue",
                  "--data-binary",
                  "@" + body,
                  "http://127.0.0.1:" + port(proxy) + "/form"));
      assertThat(curl.output()).contains("HTTP/1.1 100 Continue").contains("web got 5000 B");
    }
  }

  @Test
  void anHttp10ClientGetsItsAnswerAndTheConnectionEnds() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      s.getOutputStream().write("GET /old HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = readAll(s.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 200").endsWith("web got 0 B\n");
      assertThat(seen).containsExactly("web GET /old 127.0.0.1 null prod");
    }
  }

  @Test
  void aPartialHeadIsHeldAtExactSize() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      byte[] part = "GET /slow HTTP/1.1\r\nHost: x\r\nX-Part".getBytes(StandardCharsets.US_ASCII);
      s.getOutputStream().write(part);
      // The head waits for its end in a copy of exactly the bytes read, charged to the budget.
      Await.until(
          () -> proxy.runtime().budget().used() == part.length,
          () -> "budget " + proxy.runtime().budget().used() + " B, not " + part.length);
      s.getOutputStream().write(": 1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      assertThat(readAll(s.getInputStream())).endsWith("web got 0 B\n");
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  @Test
  void aTlsTerminatedHttpListenerTellsTheUpstreamWhatTlsKnows() throws Exception {
    TestPki pki = TestPki.get();
    try (ProxyFixture proxy =
        ProxyFixture.start(
            """
            listeners:
              - name: front
                address: 127.0.0.1:0
                protocol: http
                cluster: web
                tls: {certificates: [{cert: "%s", key: "%s"}], alpn: [http/1.1]}
                http:
                  requestHeaders: {set: {X-Env: "${sni} ${alpn}"}}
            clusters:
              - name: web
                upstreams: [{address: "127.0.0.1:%d"}]
            """
                .formatted(pki.serverCert, pki.serverKey, web.getPort()),
            dir)) {
      Commands.Result curl =
          run(
              List.of(
                  "curl",
                  "-sk",
                  "--resolve",
                  "localhost:" + port(proxy) + ":127.0.0.1",
                  "https://localhost:" + port(proxy) + "/secure"));
      assertThat(curl.output()).isEqualTo("web got 0 B\n");
      assertThat(seen).containsExactly("web GET /secure 127.0.0.1 null localhost http/1.1");
    }
  }

  @Test
  void aClientThatEndsAfterItsRequestStillGetsTheWholeResponse() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      s.getOutputStream()
          .write("GET /x HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
      // Its end may reach the proxy before or after the response head: either way it gets it all.
      assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 200").endsWith("web got 0 B\n");
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CLIENT_EOF);
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      String one = "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n";
      String two = "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
      String three = "GET /v1/3 HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n";
      s.getOutputStream().write((one + two + three).getBytes(StandardCharsets.US_ASCII));
      String answer = readAll(s.getInputStream());
      // Each request is routed on its own: the third, on the same connection, goes to api.
      assertThat(answer).containsSubsequence("web got 0 B", "web got 3 B", "api got 0 B");
      assertThat(seen)
          .containsExactly(
              "web GET /1 127.0.0.1 null prod",
              "web POST /2 127.0.0.1 null prod",
              "api GET /v1/3 127.0.0.1 null prod");
    }
  }

  @Test
  void aReloadsRoutesReachAKeptAliveConnectionAtItsNextRequest() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      s.getOutputStream().write(bytes("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
      assertThat(readUntil(s.getInputStream(), "web got 0 B\n")).startsWith("HTTP/1.1 200");
      String everythingToApi =
          yaml("")
              .replace(
                  "- {host: api.test, pathPrefix: /v1/, cluster: api}",
                  "- {pathPrefix: /, cluster: api}");
      proxy.runtime().reload(ConfigReader.read(everythingToApi, "test.yaml", dir));
      s.getOutputStream().write(bytes("GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      assertThat(readAll(s.getInputStream())).endsWith("api got 0 B\n");
      assertThat(seen)
          .containsExactly("web GET /a 127.0.0.1 null prod", "api GET /b 127.0.0.1 null prod");
    }
  }

  @Test
  void aSmugglingAttemptIsRefusedAndNeverReachesTheUpstream() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      String attack =
          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "0\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n";
      s.getOutputStream().write(attack.getBytes(StandardCharsets.US_ASCII));
      String answer = readAll(s.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 400 Bad Request").contains("Connection: close");
      s.shutdownOutput(); // the proxy shut its side after the answer and waits for the client
      List<Pair> closed = proxy.awaitClosed(1);
      assertThat(closed.getFirst().cause()).isEqualTo(CloseCause.BAD_REQUEST);
      assertThat(proxy.listener("front").stats().httpResponses())
          .isEqualTo(java.util.Map.of("none", java.util.Map.of("4xx", 1L)));
      assertThat(requestsSeen).hasValue(0);
    }
  }

  @Test
  void anOversizedHeadGets431() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      String head = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(2000) + "\r\n\r\n";
      s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 431 ");
      assertThat(requestsSeen).hasValue(0);
    }
  }

  @Test
  void aHeadThatNeverEndsGets408() throws Exception {
    try (ProxyFixture proxy = proxy("timeouts: {requestHead: 300ms}");
        Socket s = connect(proxy)) {
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 408 Request Timeout");
      assertThat(proxy.awaitClosed(1).getFirst().cause())
          .isEqualTo(CloseCause.REQUEST_HEAD_TIMEOUT);
      assertThat(proxy.runtime().budget().used()).isZero(); // the partial head is given back
    }
  }

  /**
   * The last response of a connection that closes after it, to a client slower than the linger
   * time: the linger counts once the client has been handed every byte, and then ends with a close,
   * not a reset (a reset drops what the socket's send buffer still holds). Before, the linger ran
   * from the response's last byte read from the upstream and reset the client.
   */
  @Test
  void aSlowClientGetsAllOfTheLastResponseBeforeTheConnectionEnds() throws Exception {
    int size = 256 * 1024;
    try (ProxyFixture proxy = proxy("timeouts: {requestHead: 300ms}");
        Socket s = new Socket()) {
      s.setReceiveBufferSize(4096); // before connecting: the window the proxy sees
      s.connect(proxy.address("front"));
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream()
          .write(bytes("GET /big/" + size + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      Thread.sleep(1500); // five linger times without reading
      InputStream in = s.getInputStream();
      String head = readUntil(in, "\r\n\r\n");
      assertThat(head).startsWith("HTTP/1.1 200 ").contains("Content-Length: " + size);
      assertThat(in.readAllBytes()).as("the body, then the end").hasSize(size);
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CLIENT_EOF);
    }
  }

  /**
   * A client that ends its side after an Upgrade request, before the 101: the tunnel the 101 opens
   * has ended on the client's side, so the upstream reads its end (it did not, and waited for it
   * until the half-close time).
   */
  @Test
  void anUpgradeWhoseClientEndedBeforeThe101PassesTheEndOn() throws Exception {
    try (java.net.ServerSocket tunnelEnd =
        new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread upstream =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (Socket u = tunnelEnd.accept()) {
                      readUntil(u.getInputStream(), "\r\n\r\n");
                      OutputStream out = u.getOutputStream();
                      out.write(
                          bytes(
                              "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
                                  + "Upgrade: test\r\n\r\n"));
                      u.getInputStream().readAllBytes(); // until the tunnel's end
                      out.write(bytes("done"));
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      String yaml =
          """
          listeners:
            - {name: front, address: 127.0.0.1:0, protocol: http, cluster: tunnel}
          clusters:
            - {name: tunnel, upstreams: [{address: "127.0.0.1:%d"}]}
          """
              .formatted(tunnelEnd.getLocalPort());
      try (ProxyFixture proxy = ProxyFixture.start(yaml, dir);
          Socket s = connect(proxy)) {
        s.getOutputStream()
            .write(
                bytes("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n"));
        s.shutdownOutput();
        String got = readAll(s.getInputStream());
        assertThat(got).startsWith("HTTP/1.1 101 ").endsWith("\r\n\r\ndone");
      }
      upstream.join(Await.PATIENCE.toMillis());
    }
  }

  /**
   * With no keep-alive time ({@code keepAlive: none}), the head of a kept-alive connection's next
   * request is still bounded by {@code requestHead}: before, only a running keep-alive time armed
   * it, and a partial second head was held (charged to the budget) for ever.
   */
  @Test
  void aSecondHeadThatNeverEndsGets408WithoutAKeepAliveTime() throws Exception {
    try (ProxyFixture proxy = proxy("timeouts: {requestHead: 300ms, keepAlive: none}");
        Socket s = connect(proxy)) {
      InputStream in = s.getInputStream();
      s.getOutputStream().write(bytes("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
      assertThat(readUntil(in, "web got 0 B\n")).startsWith("HTTP/1.1 200 ");
      s.getOutputStream().write(bytes("GET /b HTTP/1.1\r\nHost: x\r\n"));
      assertThat(readAll(in)).startsWith("HTTP/1.1 408 Request Timeout");
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  /**
   * A request cut midway (a bad chunk line) once its upstream is connected: the client gets its 400
   * and may go on sending while it lingers (what it sends is read and dropped). Before, the reset
   * of the upstream the proxy let go of reached the client at once, and its next writes failed
   * ("Broken pipe") before it could read the answer.
   */
  @Test
  void aClientStillSendingAfterA400MidBodyIsNotResetAndReadsIt() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      var target = proxy.upstream("web", "127.0.0.1:" + web.getPort());
      OutputStream out = s.getOutputStream();
      out.write(
          bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"));
      Await.until(() -> target.active() == 1, () -> "the upstream connected");
      out.write(bytes("ZZZ\r\n")); // not a chunk size: 400
      for (int i = 0; i < 10; i++) {
        Thread.sleep(20);
        out.write(new byte[1024]); // a client that goes on sending its body
      }
      assertThat(readUntil(s.getInputStream(), "\r\n")).startsWith("HTTP/1.1 400 ");
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.BAD_REQUEST);
    }
  }

  /**
   * With {@code requestHead: none}, a client that has its last response and stays open is closed
   * after the idle time: nothing else timed a pair that ends (it waited for the client for ever).
   */
  @Test
  void aClientThatStaysOpenAfterItsLastResponseIsClosedWithoutARequestHeadTime() throws Exception {
    try (ProxyFixture proxy = proxy("timeouts: {requestHead: none, idle: 300ms}");
        Socket s = connect(proxy)) {
      s.getOutputStream().write(bytes("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
      assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("web got 0 B\n");
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CLIENT_EOF);
    }
  }

  @Test
  void aRefusedUpstreamGets502() throws Exception {
    servers.getFirst().stop(0); // web's upstream is gone
    try (ProxyFixture proxy = proxy("");
        Socket s = connect(proxy)) {
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(readAll(s.getInputStream())).startsWith("HTTP/1.1 502 Bad Gateway");
      s.shutdownOutput();
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CONNECT_REFUSED);
    }
  }

  private static Socket connect(ProxyFixture proxy) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port(proxy));
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** What {@code in} gives up to and including the first {@code marker}. */
  private static String readUntil(InputStream in, String marker) throws IOException {
    StringBuilder got = new StringBuilder();
    while (got.indexOf(marker) < 0) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("ended before " + marker + ": " + got);
      }
      got.append((char) b);
    }
    return got.toString();
  }

  private static String readAll(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
  }
}
