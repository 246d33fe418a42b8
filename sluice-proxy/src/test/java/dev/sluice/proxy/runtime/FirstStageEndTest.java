package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.InFlightBudget;
import dev.sluice.proxy.metrics.ListenerStats;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that resets or closes while its connection is still in a first stage (the TLS port's
 * detector, a passthrough ClientHello, a PROXY protocol header) ends there, once: counted with its
 * cause, its maxConnections and per-source slots given back, and no drain waits for it.
 */
class FirstStageEndTest {
  private static final int MAX = 3;

  @TempDir Path dir;

  private static Socket open(ProxyFixture proxy, String listener) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address(listener);
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  /** Connects, sends {@code first} (maybe nothing), and resets the connection. */
  private static void resetAfter(ProxyFixture proxy, String listener, byte[] first)
      throws IOException {
    try (Socket socket = open(proxy, listener)) {
      if (first.length > 0) {
        socket.getOutputStream().write(first);
      }
      socket.setSoLinger(true, 0); // close() sends RST
    }
  }

  /** Connects, sends {@code first} (maybe nothing), ends its output and waits for the close. */
  private static void endAfter(ProxyFixture proxy, String listener, byte[] first)
      throws IOException {
    try (Socket socket = open(proxy, listener)) {
      if (first.length > 0) {
        socket.getOutputStream().write(first);
      }
      socket.shutdownOutput();
      try {
        socket.getInputStream().readAllBytes();
      } catch (java.net.SocketException reset) {
        // a reset also ends it
      }
    }
  }

  private static void awaitCount(ListenerStats stats, CloseCause cause, long count) {
    Await.until(
        () -> stats.closedCount(cause) >= count,
        () ->
            stats.listener()
                + ": "
                + count
                + " closed with "
                + cause.label()
                + ", but "
                + stats.closedByCause()
                + " with "
                + stats.openCount()
                + " open");
  }

  private static void awaitNoneOpen(ListenerStats stats) {
    Await.until(
        () -> stats.openCount() == 0,
        () ->
            stats.listener() + ": " + stats.openCount() + " still open, " + stats.closedByCause());
  }

  /** A JDK client's first flight: one record holding its ClientHello. */
  private static byte[] clientHello() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, null, null);
    SSLEngine engine = context.createSSLEngine("localhost", 443);
    engine.setUseClientMode(true);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    return Arrays.copyOf(out.array(), out.position());
  }

  @Test
  void resetsBeforeTheFirstByteOnATlsListenerFreeTheirSlotsAndNeverHoldTheDrain() throws Exception {
    TestPki pki = TestPki.get();
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                    maxConnections: %d
                    limits: {perSourceAddress: %d}
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                """
                    .formatted(MAX, MAX, pki.serverCert, pki.serverKey, echo.address()),
                dir)) {
      ListenerStats stats = proxy.listener("front").stats();
      for (int i = 0; i < MAX; i++) {
        resetAfter(proxy, "front", new byte[0]);
      }
      awaitCount(stats, CloseCause.CLIENT_RESET, MAX);
      awaitNoneOpen(stats);
      assertThat(proxy.closedPairs())
          .allSatisfy(pair -> assertThat(pair.causeDetail()).isNotBlank());

      // Every slot is free again: a real client is served.
      EchoClient.Result result =
          EchoClient.echo(proxy.address("front"), EchoClient.Security.TLS, "localhost", 1000, 3);
      assertThat(result.ok()).as(String.valueOf(result)).isTrue();

      // Two letters that could begin "GET " wait in the first stage; a reset ends them there.
      resetAfter(proxy, "front", "GE".getBytes(StandardCharsets.US_ASCII));
      awaitCount(stats, CloseCause.CLIENT_RESET, MAX + 1);
      // An end of input before the first byte fails the handshake.
      endAfter(proxy, "front", new byte[0]);
      awaitCount(stats, CloseCause.TLS_HANDSHAKE_FAILED, 1);
      awaitNoneOpen(stats);

      // A drain does not wait for clients that reset before their first byte.
      long accepted = stats.acceptedCount();
      for (int i = 0; i < MAX; i++) {
        resetAfter(proxy, "front", new byte[0]);
      }
      Await.until(
          () -> stats.acceptedCount() == accepted + MAX, () -> "the proxy to accept them all");
      CompletableFuture<Void> drained =
          CompletableFuture.runAsync(() -> proxy.runtime().shutdown(Duration.ofMinutes(10)));
      Await.result(drained, "a drain of 10 minutes that only reset clients could hold");
      assertThat(stats.openCount()).isZero();
      assertThat(stats.closedCount(CloseCause.CLIENT_RESET)).isEqualTo(2L * MAX + 1);
    }
  }

  @Test
  void aPassthroughOrProxyProtocolFirstStageEndsOnceWhateverKillsIt() throws Exception {
    byte[] hello = clientHello();
    byte[] header = "PROXY TCP4 10.1.2.3 10.0.0".getBytes(StandardCharsets.US_ASCII);
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: passthrough
                    address: 127.0.0.1:0
                    cluster: echo
                    maxConnections: %d
                    limits: {perSourceAddress: %d}
                    tls: {passthrough: true}
                  - name: header
                    address: 127.0.0.1:0
                    cluster: echo
                    maxConnections: %d
                    limits: {perSourceAddress: %d}
                    proxyProtocol: {trustedSources: [127.0.0.0/8]}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                """
                    .formatted(MAX, MAX, MAX, MAX, echo.address()),
                dir)) {
      ListenerStats passthrough = proxy.listener("passthrough").stats();
      resetAfter(proxy, "passthrough", new byte[0]);
      resetAfter(proxy, "passthrough", Arrays.copyOf(hello, hello.length / 2));
      resetAfter(proxy, "passthrough", Arrays.copyOf(hello, 3));
      awaitCount(passthrough, CloseCause.CLIENT_RESET, 3);
      endAfter(proxy, "passthrough", new byte[0]);
      endAfter(proxy, "passthrough", Arrays.copyOf(hello, hello.length / 2));
      awaitCount(passthrough, CloseCause.CLIENT_HELLO_INVALID, 2);
      awaitNoneOpen(passthrough);

      ListenerStats proxied = proxy.listener("header").stats();
      resetAfter(proxy, "header", new byte[0]);
      resetAfter(proxy, "header", header);
      awaitCount(proxied, CloseCause.CLIENT_RESET, 2);
      endAfter(proxy, "header", new byte[0]);
      endAfter(proxy, "header", header);
      awaitCount(proxied, CloseCause.PROXY_PROTOCOL_INVALID, 2);
      awaitNoneOpen(proxied);

      // Nothing was left holding a slot: each listener still takes its full share.
      List<Socket> held = new ArrayList<>();
      for (int i = 0; i < MAX; i++) {
        Socket viaHeader = open(proxy, "header");
        held.add(viaHeader);
        viaHeader.getOutputStream().write("PROXY UNKNOWN\r\nx".getBytes(StandardCharsets.US_ASCII));
        assertThat(viaHeader.getInputStream().read()).isEqualTo('x');
        Socket passedThrough = open(proxy, "passthrough");
        held.add(passedThrough);
        passedThrough.getOutputStream().write(hello); // the echo upstream sends it back
        assertThat(passedThrough.getInputStream().readNBytes(hello.length)).isEqualTo(hello);
      }
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void bytesHeldByAFirstStageAreChargedToTheBudgetUntilHandedOnOrTheClientGoes() throws Exception {
    byte[] hello = clientHello();
    byte[] half = Arrays.copyOf(hello, hello.length / 2);
    byte[] rest = Arrays.copyOfRange(hello, half.length, hello.length);
    byte[] header = "PROXY TCP4 10.1.2.3 10.0.0.1 ".getBytes(StandardCharsets.US_ASCII);
    byte[] headerRest = "40000 443\r\n".getBytes(StandardCharsets.US_ASCII);
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: passthrough
                    address: 127.0.0.1:0
                    cluster: echo
                    tls: {passthrough: true}
                  - name: header
                    address: 127.0.0.1:0
                    cluster: echo
                    proxyProtocol: {trustedSources: [127.0.0.0/8]}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                """
                    .formatted(echo.address()),
                dir)) {
      InFlightBudget budget = proxy.runtime().budget();
      record Case(String listener, byte[] first, byte[] then) {}
      for (Case c :
          List.of(new Case("passthrough", half, rest), new Case("header", header, headerRest))) {
        // Handed on: the held bytes are released when the next stage takes them.
        try (Socket client = open(proxy, c.listener())) {
          client.getOutputStream().write(c.first());
          awaitHeld(budget, c.first().length, c.listener());
          client.getOutputStream().write(c.then());
          client.getOutputStream().write('x');
          byte[] expected =
              c.listener().equals("header")
                  ? new byte[] {'x'}
                  : concat(c.first(), c.then(), new byte[] {'x'});
          assertThat(client.getInputStream().readNBytes(expected.length)).isEqualTo(expected);
        }
        awaitNoneOpen(proxy.listener(c.listener()).stats());
        assertThat(budget.used()).as("%s, handed on and ended", c.listener()).isZero();
        // Died holding them: released when the connection ends.
        try (Socket client = open(proxy, c.listener())) {
          client.getOutputStream().write(c.first());
          awaitHeld(budget, c.first().length, c.listener());
          client.setSoLinger(true, 0);
        }
        awaitNoneOpen(proxy.listener(c.listener()).stats());
        assertThat(budget.used()).as("%s, reset while held", c.listener()).isZero();
      }
    }
  }

  private static void awaitHeld(InFlightBudget budget, int bytes, String listener) {
    Await.until(
        () -> budget.used() >= bytes,
        () ->
            listener + ": " + bytes + " B held in the first stage, " + budget.used() + " charged");
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
