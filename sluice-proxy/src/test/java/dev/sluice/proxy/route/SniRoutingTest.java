package dev.sluice.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoClient.Security;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.OpensslSession;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.TlsEchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.HelloRetryClient;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import dev.sluice.tls.TlsEngineKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Routing by server name: after terminating TLS, and on a passthrough listener from a ClientHello
 * that arrives split into many TCP segments and TLS records, forwarded untouched to a TLS upstream
 * that completes the handshake with the client itself.
 */
class SniRoutingTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  @Test
  void aTerminatingListenerRoutesByServerNameAndRefusesAnUnknownOne() throws Exception {
    try (EchoServer a = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        EchoServer b = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    sni:
                      - {match: localhost, cluster: a}
                      - {match: "*.localhost", cluster: b}
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  - {name: a, upstreams: [{address: "127.0.0.1:%d"}]}
                  - {name: b, upstreams: [{address: "127.0.0.1:%d"}]}
                """
                    .formatted(pki.serverCert, pki.serverKey, port(a), port(b)),
                dir)) {
      assertThat(EchoClient.echo(proxy.address("front"), Security.TLS, "localhost", 1000, 1).ok())
          .isTrue();
      assertThat(a.accepted()).isEqualTo(1);
      assertThat(b.accepted()).isZero();
      Pair first = proxy.awaitClosed(1).getFirst();
      assertThat(first.facts().serverName()).isEqualTo("localhost");
      assertThat(first.facts().target().name()).isEqualTo("127.0.0.1:" + port(a));

      // A name no rule matches and no default: the handshake completes, then no route.
      try (EchoClient.Streams s =
          EchoClient.open(proxy.address("front"), Security.TLS, "other.example", false)) {
        assertThat(s.in.read()).isEqualTo(-1);
      }
      Pair refused = proxy.awaitClosed(2).get(1);
      assertThat(refused.cause()).isEqualTo(CloseCause.NO_ROUTE);
      assertThat(refused.causeDetail()).contains("other.example");
      assertThat(a.accepted() + b.accepted()).as("no upstream for an unrouted client").isEqualTo(1);
    }
  }

  /**
   * A session made for one name and offered with another is not resumed: the client gets a full
   * handshake with the other name's certificate, and the connection is routed (and logged) by the
   * name it sent. OpenSSL resumed such a TLS 1.2 session and reported the session's name, so the
   * proxy sent it to the first name's cluster.
   */
  @ParameterizedTest
  @ValueSource(strings = {"-tls1_2", "-tls1_3"})
  void aSessionOfferedUnderAnotherNameIsNotResumedAndIsRoutedByTheNameSent(String protocol)
      throws Exception {
    try (OpensslSession.LineEcho a = new OpensslSession.LineEcho();
        OpensslSession.LineEcho b = new OpensslSession.LineEcho();
        ProxyFixture proxy = twoNames(a.address(), b.address())) {
      InetSocketAddress front = (InetSocketAddress) proxy.address("front");
      OpensslSession client = new OpensslSession(dir.resolve("session"), protocol, true);
      assertThat(client.first(front).reused()).isFalse();
      assertThat(client.again(front).reused()).as("the same name resumes").isTrue();
      OpensslSession.Outcome other = client.withServerName("other.test").again(front);
      assertThat(other.reused()).as("localhost's session offered for other.test").isFalse();
      assertThat(other.output()).contains("CN = other.test");
      Pair pair = proxy.awaitClosed(3).get(2);
      assertThat(pair.facts().serverName()).isEqualTo("other.test");
      assertThat(pair.facts().target().name()).isEqualTo(b.address());
    }
  }

  /**
   * A TLS 1.3 client whose second ClientHello (after a HelloRetryRequest) asks for another name
   * than its first: fingerprinted by the first and served by the second, it would reach the first
   * name's cluster with the second's certificate. It is refused in the handshake, logged and
   * counted with the name of its first hello, and no upstream is dialled.
   */
  @Test
  void aSecondClientHelloAskingForAnotherNameIsRefused() throws Exception {
    try (EchoServer a = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        EchoServer b = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = twoNames("127.0.0.1:" + port(a), "127.0.0.1:" + port(b));
        HelloRetryClient client = new HelloRetryClient(proxy.address("front"), Await.PATIENCE)) {
      byte[] retry = client.helloAndRetry("localhost");
      assertThat(retry).as("a HelloRetryRequest").isNotNull();
      HelloRetryClient.Record answer = client.secondHello("other.test", retry);
      if (TlsTestBase.onBoringSsl()) {
        // BoringSSL negotiates on the first hello alone and ignores the second's name: served,
        // routed and fingerprinted as localhost, so no certificate of another name reaches it.
        assertThat(answer.isServerHello()).as("BoringSSL answers on the first hello").isTrue();
        return;
      }
      assertThat(answer.type()).as("an alert").isEqualTo(HelloRetryClient.ALERT);
      assertThat(client.read()).isEqualTo(-1);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.TLS_HANDSHAKE_FAILED);
      assertThat(pair.causeDetail())
          .contains(
              TlsTestBase.engine() == TlsEngineKind.JDK
                  ? "Unrecognized server name"
                  : "asks for the server name other.test, the first asked for the server name"
                      + " localhost");
      assertThat(pair.facts().serverName()).as("the first hello's name").isEqualTo("localhost");
      assertThat(proxy.listener("front").stats().closedCount(CloseCause.TLS_HANDSHAKE_FAILED))
          .isEqualTo(1);
      assertThat(a.accepted() + b.accepted()).as("no upstream dialled").isZero();
    }
  }

  @Test
  void aPassthroughListenerRoutesASplitClientHelloAndForwardsItUntouched() throws Exception {
    try (TlsEchoServer upstream = new TlsEchoServer(pki.serverKeyMaterial());
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    sni: [{match: localhost, cluster: tls}]
                    tls: {passthrough: true}
                clusters:
                  - {name: tls, upstreams: [{address: "127.0.0.1:%d"}]}
                """
                    .formatted(upstream.port()),
                dir);
        Slicer slicer = new Slicer((InetSocketAddress) proxy.address("front"))) {
      // The client's TLS goes through a relay that re-frames its first record into three and
      // sends it a byte at a time: the proxy must reassemble it to read the name.
      EchoClient.Result result =
          EchoClient.echo(slicer.address(), Security.TLS, "localhost", 2 << 20, 7);
      assertThat(result.failure()).isNull();
      assertThat(result.ok()).isTrue();
      assertThat(Await.result(upstream.sawServerName, "the upstream's SNI")).isEqualTo("localhost");
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().serverName()).isEqualTo("localhost");
      assertThat(pair.cause()).isIn(CloseCause.CLIENT_EOF, CloseCause.UPSTREAM_EOF);
      assertThat(slicer.pieces).as("the ClientHello went in pieces").isGreaterThan(100);
    }
  }

  @Test
  void aPassthroughListenerRefusesWhatIsNotAClientHello() throws Exception {
    try (ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    sni: [{default: x}]
                    tls: {passthrough: true}
                clusters:
                  - {name: x, upstreams: [{address: "127.0.0.1:9"}]}
                """,
                dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes());
      assertThat(client.getInputStream().read()).isEqualTo(-1);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.CLIENT_HELLO_INVALID);
      assertThat(pair.causeDetail()).contains("not a TLS handshake record");
    }
  }

  @Test
  void aClientWhoseHandshakeFailsIsCountedWithThatCause() throws Exception {
    try (ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: x
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  - {name: x, upstreams: [{address: "127.0.0.1:9"}]}
                """
                    .formatted(pki.serverCert, pki.serverKey),
                dir);
        Socket client = connect(proxy)) {
      byte[] garbage = new byte[64];
      garbage[0] = 0x16;
      garbage[1] = 3;
      garbage[2] = 1;
      garbage[4] = 59;
      client.getOutputStream().write(garbage);
      while (client.getInputStream().read() >= 0) {
        // an alert, then the close
      }
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.TLS_HANDSHAKE_FAILED);
      assertThat(proxy.listener("front").stats().closedCount(CloseCause.TLS_HANDSHAKE_FAILED))
          .isEqualTo(1);
    } catch (java.net.SocketException reset) {
      // the proxy may reset after its alert; the count is what matters
    }
  }

  /**
   * A terminating listener with a certificate each for localhost (cluster a) and other.test (b).
   */
  private ProxyFixture twoNames(String a, String b) throws Exception {
    return ProxyFixture.start(
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            sni:
              - {match: localhost, cluster: a}
              - {match: other.test, cluster: b}
            tls:
              certificates:
                - {cert: "%s", key: "%s"}
                - {cert: "%s", key: "%s"}
        clusters:
          - {name: a, upstreams: [{address: "%s"}]}
          - {name: b, upstreams: [{address: "%s"}]}
        """
            .formatted(pki.serverCert, pki.serverKey, pki.otherCert, pki.otherKey, a, b),
        dir);
  }

  private static Socket connect(ProxyFixture proxy) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static int port(EchoServer echo) {
    return ((InetSocketAddress) echo.address()).getPort();
  }

  /**
   * A relay in front of the proxy: it re-frames the client's first TLS record into three records
   * and sends that a byte at a time, then relays everything else as it comes.
   */
  private static final class Slicer implements AutoCloseable {
    private final ServerSocket server;
    volatile int pieces;

    Slicer(InetSocketAddress proxy) throws IOException {
      server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      Thread.ofVirtual()
          .start(
              () -> {
                try (Socket client = server.accept();
                    Socket upstream = new Socket(proxy.getAddress(), proxy.getPort())) {
                  upstream.setTcpNoDelay(true);
                  InputStream fromClient = client.getInputStream();
                  OutputStream toProxy = upstream.getOutputStream();
                  Thread back =
                      Thread.ofVirtual()
                          .start(
                              () -> {
                                try {
                                  upstream.getInputStream().transferTo(client.getOutputStream());
                                  client.shutdownOutput();
                                } catch (IOException ignored) {
                                  // the test's assertions say what went wrong
                                }
                              });
                  byte[] header = fromClient.readNBytes(5);
                  int length = ByteBuffer.wrap(header, 3, 2).getShort() & 0xffff;
                  byte[] body = fromClient.readNBytes(length);
                  int cut1 = length / 3;
                  int cut2 = 2 * length / 3;
                  ByteBuffer reframed = ByteBuffer.allocate(length + 15);
                  for (int[] piece : new int[][] {{0, cut1}, {cut1, cut2}, {cut2, length}}) {
                    reframed.put(header, 0, 3).putShort((short) (piece[1] - piece[0]));
                    reframed.put(body, piece[0], piece[1] - piece[0]);
                  }
                  for (byte b : reframed.array()) {
                    toProxy.write(b);
                    toProxy.flush();
                    pieces++;
                    Thread.sleep(0, 200_000);
                  }
                  fromClient.transferTo(toProxy);
                  upstream.shutdownOutput();
                  back.join();
                } catch (IOException | InterruptedException e) {
                  // the test's assertions say what went wrong
                }
              });
    }

    InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
