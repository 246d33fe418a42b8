package dev.sluice.proxy.forward;

import static dev.sluice.proxy.testing.AdminClient.series;
import static dev.sluice.proxy.testing.HttpWire.bytes;
import static dev.sluice.proxy.testing.HttpWire.client;
import static dev.sluice.proxy.testing.HttpWire.readHead;
import static dev.sluice.proxy.testing.HttpWire.readRequest;
import static dev.sluice.proxy.testing.HttpWire.readResponse;
import static dev.sluice.proxy.testing.HttpWire.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP listener's pooled upstream connections where an upstream or a client misbehaves: bytes
 * an upstream sends past its response never reach another request, and the connection that sent
 * them is never kept. One loop, so every client shares its pool.
 */
class PooledUpstreamEdgesTest {
  private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

  @TempDir Path dir;
  private ScriptedUpstream upstream;

  @BeforeEach
  void start() throws IOException {
    upstream = ScriptedUpstream.start();
  }

  @AfterEach
  void stop() throws IOException {
    upstream.close();
  }

  private ProxyFixture proxy() throws Exception {
    return ProxyFixture.start(
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            protocol: http
            cluster: web
        clusters:
          - name: web
            upstreams: [{address: "%s"}]
        """
            .formatted(upstream.address()),
        dir,
        1);
  }

  @Test
  void bytesPastAResponseInItsLastReadAreNotThePipelinedRequestsResponse() throws Exception {
    try (ProxyFixture proxy = proxy();
        Socket client = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      assertThat(readRequest(a)).startsWith("GET /1");
      // One write: the answer to /1 and, past it, a response nobody asked for.
      a.getOutputStream().write(bytes(OK + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nforged"));
      InputStream in = client.getInputStream();
      assertThat(readResponse(in)).endsWith("ok");
      // /2 must go out on a connection that then answers it, not be answered by a's leftovers.
      Socket b = upstream.next();
      assertThat(readRequest(b)).startsWith("GET /2");
      b.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"));
      assertThat(readResponse(in)).endsWith("two");
      assertThat(a.getInputStream().read()).isEqualTo(-1); // a was not kept
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle()); // b was
      a.close();
      b.close();
    }
  }

  @Test
  void bytesPastAResponseInItsLastReadLeaveAKeepAliveClientConnected() throws Exception {
    try (ProxyFixture proxy = proxy();
        Socket client = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.getOutputStream().write(bytes(OK + "junk"));
      InputStream in = client.getInputStream();
      assertThat(readResponse(in)).endsWith("ok");
      assertThat(a.getInputStream().read()).isEqualTo(-1); // not kept: it sent bytes unasked
      assertThat(target.idle()).isZero();
      send(client, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket b = upstream.next();
      assertThat(readRequest(b)).startsWith("GET /2");
      b.getOutputStream().write(bytes(OK));
      assertThat(readResponse(in)).endsWith("ok");
      a.close();
      b.close();
    }
  }

  @Test
  void aRequestOnAPooledConnectionIsNoConnectInTheConnectDurationHistogram() throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        listeners:
          - {name: front, address: 127.0.0.1:0, protocol: http, cluster: web}
        clusters:
          - name: web
            upstreams: [{address: "%s"}]
        admin: {address: 127.0.0.1:0}
        """
            .formatted(upstream.address()));
    try (ProxyService service = ProxyService.start(ConfigReader.read(file), file, (l, p) -> {})) {
      InetSocketAddress front =
          (InetSocketAddress) service.runtime().listener("front").boundAddress();
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), front.getPort())) {
        client.setSoTimeout((int) Await.PATIENCE.toMillis());
        Socket a = null;
        for (int i = 1; i <= 3; i++) {
          send(client, "GET /" + i + " HTTP/1.1\r\nHost: x\r\n\r\n");
          if (a == null) {
            a = upstream.next();
          }
          assertThat(readRequest(a)).startsWith("GET /" + i); // one connection for all three
          a.getOutputStream().write(bytes(OK));
          assertThat(readResponse(client.getInputStream())).endsWith("ok");
        }
        a.close();
      }
      Map<String, Double> m = new AdminClient(service.admin().address()).scrape();
      String[] web = {"cluster", "web", "upstream", upstream.address()};
      assertThat(m.get(series("sluice_upstream_connects_total", web))).isEqualTo(1.0);
      assertThat(m.get(series("sluice_upstream_reuses_total", web))).isEqualTo(2.0);
      assertThat(m.get(series("sluice_upstream_connect_duration_seconds_count", web)))
          .as("one connect time per connect, none for a connection taken from the pool")
          .isEqualTo(1.0);
    }
  }

  /**
   * A pooled connection its upstream reset while the proxy's loop was busy: the request's write
   * meets the reset at once, and the request goes again on a new connection, whose response the
   * client gets. Before, the failed write's completion came back to the client's side after the
   * retry had begun, and reset the client.
   */
  @Test
  void aRequestOnAPooledConnectionResetUnseenIsSentAgainAndAnswered() throws Exception {
    try (ProxyFixture proxy = proxy()) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      try (Socket client = client(proxy)) {
        send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
        Socket a = upstream.next();
        readRequest(a);
        a.getOutputStream().write(bytes(OK));
        InputStream in = client.getInputStream();
        assertThat(readResponse(in)).endsWith("ok");
        Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());

        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        proxy
            .runtime()
            .group()
            .loops()
            .getFirst()
            .execute(
                () -> {
                  busy.countDown();
                  Await.until(() -> done.getCount() == 0, () -> "the test's go");
                });
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        send(client, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n"); // first in the loop's next batch
        a.setSoLinger(true, 0);
        a.close(); // the pooled connection's reset, in the same batch
        done.countDown();

        Socket b = upstream.next();
        assertThat(readRequest(b)).startsWith("GET /2");
        b.getOutputStream().write(bytes(OK));
        assertThat(readResponse(in)).endsWith("ok");
        b.close();
      }
    }
  }

  @Test
  void aRetryAndA502LeaveNoBudgetNoCountAndNoDescriptorBehind() throws Exception {
    long fdsBefore = openDescriptors();
    Socket a;
    Socket b;
    try (ProxyFixture proxy = proxy()) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      try (Socket client = client(proxy)) {
        send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
        a = upstream.next();
        readRequest(a);
        a.getOutputStream().write(bytes(OK));
        InputStream in = client.getInputStream();
        assertThat(readResponse(in)).endsWith("ok");
        Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
        send(client, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(readRequest(a)).startsWith("GET /2");
        a.close(); // unanswered: sent again on a new connection
        b = upstream.next();
        assertThat(readRequest(b)).startsWith("GET /2");
        b.getOutputStream().write(bytes(OK));
        assertThat(readResponse(in)).endsWith("ok");
        Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
        send(client, "POST /3 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nz");
        assertThat(readRequest(b)).startsWith("POST /3");
        b.close(); // unanswered, not sent again
        assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII))
            .startsWith("HTTP/1.1 502");
      }
      proxy.awaitClosed(1);
      assertThat(proxy.runtime().budget().used()).isZero();
      assertThat(target.active()).isZero();
      assertThat(target.idle()).isZero();
      // The loop stops with an idle connection in its pool: it is closed too.
      try (Socket client = client(proxy)) {
        send(client, "GET /4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        Socket c = upstream.next();
        readRequest(c);
        c.getOutputStream().write(bytes(OK));
        assertThat(new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
            .endsWith("ok");
        Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
        b = c;
      }
    }
    assertThat(b.getInputStream().read()).isEqualTo(-1);
    b.close();
    a.close();
    assertThat(openDescriptors()).isLessThanOrEqualTo(fdsBefore);
  }

  @Test
  void bodilessResponsesKeepTheConnectionInStepAndBytesSentWhilePooledCloseIt() throws Exception {
    try (ProxyFixture proxy = proxy();
        Socket client = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      InputStream in = client.getInputStream();
      String[][] exchanges = {
        {"HEAD /h", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"},
        {"GET /n", "HTTP/1.1 204 No Content\r\n\r\n"},
        {"GET /m", "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"},
        {"GET /g", OK}
      };
      Socket a = null;
      for (String[] exchange : exchanges) {
        send(client, exchange[0] + " HTTP/1.1\r\nHost: x\r\n\r\n");
        if (a == null) {
          a = upstream.next();
        }
        assertThat(readRequest(a)).startsWith(exchange[0]); // all on one connection
        a.getOutputStream().write(bytes(exchange[1]));
        String head = readHead(in);
        assertThat(head).startsWith(exchange[1].substring(0, 12));
        Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      }
      assertThat(new String(in.readNBytes(2), StandardCharsets.US_ASCII)).isEqualTo("ok");
      a.getOutputStream().write(bytes("late"));
      Await.until(() -> target.idle() == 0, () -> "idle " + target.idle());
      assertThat(target.active()).isZero();
      send(client, "GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket b = upstream.next();
      assertThat(readRequest(b)).startsWith("GET /after");
      b.getOutputStream().write(bytes(OK));
      assertThat(readResponse(in)).endsWith("ok");
      a.close();
      b.close();
    }
  }

  @Test
  void aClientResetWhileALargeResponseDrainsToItLeavesNothingHeld() throws Exception {
    try (ProxyFixture proxy = proxy()) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      int size = 4 << 20;
      Socket a;
      Thread writer;
      try (Socket client = new Socket()) {
        client.setReceiveBufferSize(4096); // slow to take what the proxy holds for it
        client.connect(proxy.address("front"));
        client.setSoTimeout((int) Await.PATIENCE.toMillis());
        send(client, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        a = upstream.next();
        readRequest(a);
        writer =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        a.getOutputStream()
                            .write(
                                bytes("HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n"));
                        a.getOutputStream().write(new byte[size]);
                      } catch (IOException reset) {
                        // the proxy reset it after the client's reset
                      }
                    });
        assertThat(client.getInputStream().readNBytes(1 << 20)).hasSize(1 << 20);
        client.setSoLinger(true, 0); // closed with a reset, the response not all taken
      }
      writer.join();
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CLIENT_RESET);
      Await.until(
          () -> proxy.runtime().budget().used() == 0,
          () -> "budget " + proxy.runtime().budget().used());
      assertThat(target.active()).isZero();
      assertThat(target.idle()).isZero(); // not kept: its response was cut
      a.close();
    }
  }

  private static long openDescriptors() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
