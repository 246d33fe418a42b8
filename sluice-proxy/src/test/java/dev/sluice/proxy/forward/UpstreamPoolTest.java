package dev.sluice.proxy.forward;

import static dev.sluice.proxy.testing.HttpWire.bytes;
import static dev.sluice.proxy.testing.HttpWire.client;
import static dev.sluice.proxy.testing.HttpWire.readAll;
import static dev.sluice.proxy.testing.HttpWire.readRequest;
import static dev.sluice.proxy.testing.HttpWire.readResponse;
import static dev.sluice.proxy.testing.HttpWire.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP listener's upstream connections: one per exchange, kept idle in the loop's pool after
 * it, reused by the next request to that upstream from any client, dropped when the upstream ends
 * them, and a bodiless idempotent request sent once more when its pooled connection turns out
 * closed. The upstream is scripted by hand, so each test knows which connection a request came on.
 * A pool is a loop's (a connection lives on one loop): the proxy runs one, so that every client
 * lands on it.
 */
class UpstreamPoolTest {
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

  private ProxyFixture proxy(String pool) throws Exception {
    return ProxyFixture.start(
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            protocol: http
            cluster: web
            http: {%s}
        clusters:
          - name: web
            upstreams: [{address: "%s"}]
        """
            .formatted(pool, upstream.address()),
        dir,
        1);
  }

  @Test
  void aSecondClientsRequestGoesOutOnTheFirstOnesIdleConnection() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      Socket a;
      try (Socket client = client(proxy)) {
        send(client, "GET /one HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        a = upstream.next();
        assertThat(readRequest(a)).startsWith("GET /one HTTP/1.1");
        a.getOutputStream().write(bytes(OK));
        assertThat(readAll(client)).startsWith("HTTP/1.1 200").endsWith("ok");
      }
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      try (Socket client = client(proxy)) {
        send(client, "GET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(readRequest(a)).startsWith("GET /two HTTP/1.1"); // on the same connection
        a.getOutputStream().write(bytes(OK));
        assertThat(readAll(client)).startsWith("HTTP/1.1 200").endsWith("ok");
      }
      assertThat(target.connects()).isEqualTo(1);
      assertThat(target.reuses()).isEqualTo(1);
      assertThat(upstream.waiting()).isZero();
      a.close();
    }
  }

  @Test
  void anIdleKeepAliveClientHoldsNoUpstreamConnection() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket client = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      send(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.getOutputStream().write(bytes(OK));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      Await.until(
          () -> target.idle() == 1 && target.active() == 0,
          () -> "idle " + target.idle() + ", active " + target.active());
      // The same client's next request takes the idle connection back.
      send(client, "GET /again HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(readRequest(a)).startsWith("GET /again");
      a.getOutputStream().write(bytes(OK));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      a.close();
    }
  }

  @Test
  void anUpstreamThatClosesBetweenRequestsLeavesTheClientConnected() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket client = client(proxy)) {
      send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.getOutputStream()
          .write(bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      assertThat(a.getInputStream().read()).isEqualTo(-1); // not kept: the proxy closed it
      a.close();
      send(client, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket b = upstream.next(); // a new connection for the same client
      assertThat(readRequest(b)).startsWith("GET /2");
      b.getOutputStream().write(bytes(OK));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      b.close();
    }
  }

  @Test
  void anIdleConnectionItsUpstreamClosedIsNotUsed() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      Socket a = exchangeAndClose(proxy, "/1");
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      a.close(); // the upstream's keep-alive timeout, say
      Await.until(() -> target.idle() == 0, () -> "idle " + target.idle());
      try (Socket client = client(proxy)) {
        send(client, "GET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        Socket b = upstream.next();
        assertThat(readRequest(b)).startsWith("GET /2");
        b.getOutputStream().write(bytes(OK));
        assertThat(readAll(client)).startsWith("HTTP/1.1 200");
        b.close();
      }
    }
  }

  @Test
  void aGetWhosePooledConnectionClosesUnansweredIsSentOnceMoreOnANewOne() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      Socket a = exchangeAndClose(proxy, "/1");
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      try (Socket client = client(proxy)) {
        send(client, "GET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        String first = readRequest(a);
        a.close(); // the race: the upstream closed its idle connection as the request came
        Socket b = upstream.next();
        assertThat(readRequest(b)).isEqualTo(first);
        b.getOutputStream().write(bytes(OK));
        assertThat(readAll(client)).startsWith("HTTP/1.1 200").endsWith("ok");
        b.close();
      }
    }
  }

  @Test
  void aPostWhosePooledConnectionClosesUnansweredGets502AndIsNotSentAgain() throws Exception {
    try (ProxyFixture proxy = proxy("")) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      Socket a = exchangeAndClose(proxy, "/1");
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      try (Socket client = client(proxy)) {
        send(client, "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        readRequest(a);
        a.close();
        assertThat(readAll(client)).startsWith("HTTP/1.1 502");
      }
      assertThat(upstream.waiting()).isZero(); // a 502 comes after any retry would have connected
    }
  }

  @Test
  void bytesAfterAWholeResponseAreNeverTakenForTheNextPipelinedRequestsResponse() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket client = client(proxy)) {
      send(client, "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      assertThat(readRequest(a)).startsWith("GET /one");
      // A second response in the same write: no request asked for it (the second has not gone up).
      a.getOutputStream()
          .write(bytes(OK + "HTTP/1.1 200 OK\r\nX-Forged: yes\r\nContent-Length: 6\r\n\r\nforged"));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      assertThat(a.getInputStream().read()).as("that connection is closed").isEqualTo(-1);
      Socket b = upstream.next();
      assertThat(readRequest(b)).startsWith("GET /two");
      b.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo"));
      assertThat(readResponse(client.getInputStream())).doesNotContain("X-Forged").endsWith("two");
      a.close();
      b.close();
    }
  }

  @Test
  void aResetBeforeTheResponseHeadGets502() throws Exception {
    try (ProxyFixture proxy = proxy("");
        Socket client = client(proxy)) {
      send(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.setSoLinger(true, 0);
      a.close();
      assertThat(readAll(client)).startsWith("HTTP/1.1 502");
      client.shutdownOutput(); // as clients do after the answer's FIN
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.UPSTREAM_RESET);
    }
  }

  @Test
  void noneIsKeptWithMaxIdleZero() throws Exception {
    try (ProxyFixture proxy = proxy("upstreamPool: {maxIdlePerUpstream: 0}");
        Socket client = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      send(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.getOutputStream().write(bytes(OK));
      assertThat(readResponse(client.getInputStream())).endsWith("ok");
      assertThat(a.getInputStream().read()).isEqualTo(-1);
      assertThat(target.idle()).isZero();
      a.close();
    }
  }

  @Test
  void anIdleConnectionIsClosedWhenItsIdleTimeRunsOut() throws Exception {
    try (ProxyFixture proxy = proxy("upstreamPool: {idle: 200ms}")) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      Socket a = exchangeAndClose(proxy, "/");
      assertThat(a.getInputStream().read()).isEqualTo(-1); // the proxy closed it
      Await.until(() -> target.idle() == 0, () -> "idle " + target.idle());
      a.close();
    }
  }

  @Test
  void eachUpstreamKeepsAtMostItsShare() throws Exception {
    try (ProxyFixture proxy = proxy("upstreamPool: {maxIdlePerUpstream: 1}");
        Socket one = client(proxy);
        Socket two = client(proxy)) {
      UpstreamTarget target = proxy.upstream("web", upstream.address());
      send(one, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      send(two, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket b = upstream.next(); // a is busy: a second connection
      readRequest(b);
      a.getOutputStream().write(bytes(OK));
      assertThat(readResponse(one.getInputStream())).endsWith("ok");
      Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
      b.getOutputStream().write(bytes(OK));
      assertThat(readResponse(two.getInputStream())).endsWith("ok");
      assertThat(b.getInputStream().read()).isEqualTo(-1); // the pool was full: closed
      assertThat(target.idle()).isEqualTo(1);
      a.close();
      b.close();
    }
  }

  /**
   * One request on a new client connection that asks to close after it; the upstream answers on the
   * connection returned.
   */
  private Socket exchangeAndClose(ProxyFixture proxy, String path) throws Exception {
    try (Socket client = client(proxy)) {
      send(client, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      Socket a = upstream.next();
      readRequest(a);
      a.getOutputStream().write(bytes(OK));
      assertThat(readAll(client)).startsWith("HTTP/1.1 200");
      return a;
    }
  }
}
