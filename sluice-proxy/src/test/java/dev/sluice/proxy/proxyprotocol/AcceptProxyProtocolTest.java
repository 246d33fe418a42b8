package dev.sluice.proxy.proxyprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Listeners that take PROXY protocol headers, over real TCP on loopback: v1 and v2 headers become
 * the pair's client address while the bytes after them reach the upstream untouched (also when the
 * header arrives cut anywhere, and before a TLS handshake); a header too slow, malformed, from an
 * untrusted peer, or missing closes that connection alone, with its cause; optional headers let
 * direct clients in; address limits judge the header's client.
 */
class AcceptProxyProtocolTest {
  @TempDir Path dir;

  private static final byte[] V1 =
      ascii("PROXY TCP4 203.0.113.7 192.0.2.10 51234 443\r\n"); // 203.0.113.7:51234 -> :443

  private static String yaml(String upstream, String proxyProtocol, String extra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: app
            proxyProtocol: %s
        %s
        clusters:
          - {name: app, upstreams: [{address: "%s"}], retries: {tries: 1}}
        """
        .formatted(proxyProtocol, extra, upstream);
  }

  private static String yaml(String upstream, String proxyProtocol) {
    return yaml(upstream, proxyProtocol, "");
  }

  private static final String TRUST_LOOPBACK = "{trustedSources: [127.0.0.0/8]}";

  @Test
  void aV1HeaderNamesTheClientAndTheBytesAfterItReachTheUpstreamUntouched() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), TRUST_LOOPBACK), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(concat(V1, ascii("hello, upstream")));
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        assertThat(up.getInputStream().readNBytes(15)).isEqualTo(ascii("hello, upstream"));
        up.getOutputStream().write(ascii("and back"));
        assertThat(client.getInputStream().readNBytes(8)).isEqualTo(ascii("and back"));
      }
      client.shutdownOutput();
      readToEnd(client);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().clientAddress())
          .isEqualTo(new InetSocketAddress(InetAddress.getByName("203.0.113.7"), 51234));
      assertThat(pair.facts().peerAddress())
          .isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), localPort(client)));
      assertThat(pair.destinationAddress())
          .isEqualTo(new InetSocketAddress(InetAddress.getByName("192.0.2.10"), 443));
      assertThat(pair.client().bytesRead()).isEqualTo(15); // the header is not the client's
      assertThat(pair.dumpLine(System.nanoTime()))
          .as("the runtime dump names the header's client beside the socket's peer")
          .contains("for 203.0.113.7:51234");
    }
  }

  @Test
  void aV2HeaderWithTlvsNamesAnIpv6ClientAndItsAuthority() throws Exception {
    byte[] header =
        V2Bytes.proxy(0x21)
            .ipv6Addresses()
            .tlv(Tlv.AUTHORITY, ascii("api.example.com"))
            .tlv(Tlv.ALPN, ascii("h2"))
            .build(true);
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(upstream.address(), "{trustedSources: [127.0.0.1/32], versions: [v2]}"), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(concat(header, ascii("PING")));
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        assertThat(up.getInputStream().readNBytes(4)).isEqualTo(ascii("PING"));
      }
      client.shutdownOutput();
      readToEnd(client);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().clientAddress())
          .isEqualTo(new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 40000));
      assertThat(pair.facts().proxyHeader().authority()).isEqualTo("api.example.com");
      assertThat(pair.facts().proxyHeader().alpn()).isEqualTo("h2");
    }
  }

  @Test
  void aHeaderCutAnywhereOverTcpIsReadWholeAndWhatFollowsIsUntouched() throws Exception {
    byte[] v2 = V2Bytes.proxy(0x11).ipv4Addresses().tlv(Tlv.AUTHORITY, ascii("a.test")).build(true);
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = ProxyFixture.start(yaml(echoAddress(echo), TRUST_LOOPBACK), dir)) {
      byte[] payload = ascii("payload after the header");
      int pairs = 0;
      for (byte[] header : List.of(V1, v2)) {
        byte[] all = concat(header, payload);
        // Every cut inside the header and the first few after it: each part is its own segment
        // (no delay, a pause between), so the listener sees the header arrive in two reads.
        for (int cut = 1; cut < header.length + 3; cut++) {
          try (Socket client = connect(proxy)) {
            client.setTcpNoDelay(true);
            client.getOutputStream().write(all, 0, cut);
            client.getOutputStream().flush();
            Thread.sleep(3);
            client.getOutputStream().write(all, cut, all.length - cut);
            assertThat(client.getInputStream().readNBytes(payload.length))
                .as("cut at %d of a %d B header", cut, header.length)
                .isEqualTo(payload);
          }
          pairs++;
        }
      }
      List<Pair> closed = proxy.awaitClosed(pairs);
      assertThat(closed).allSatisfy(p -> assertThat(p.facts().proxyHeader()).isNotNull());
      assertThat(closed)
          .extracting(
              p -> ((InetSocketAddress) p.facts().clientAddress()).getAddress().getHostAddress())
          .containsOnly("203.0.113.7", "192.0.2.1");
    }
  }

  @Test
  void aHeaderThatNeverCompletesTimesOutAndABystanderGoesOn() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(echoAddress(echo), "{trustedSources: [127.0.0.0/8], timeout: 300ms}"), dir);
        Socket bystander = connect(proxy);
        Socket slow = connect(proxy)) {
      bystander.getOutputStream().write(concat(V1, ascii("one")));
      assertThat(bystander.getInputStream().readNBytes(3)).isEqualTo(ascii("one"));
      slow.getOutputStream().write(Arrays.copyOf(V1, 20)); // half a header, then nothing
      long start = System.nanoTime();
      assertThat(readToEnd(slow)).isEmpty();
      assertThat((System.nanoTime() - start) / 1_000_000).isBetween(150L, 10_000L);
      bystander.getOutputStream().write(ascii("two"));
      assertThat(bystander.getInputStream().readNBytes(3)).isEqualTo(ascii("two"));

      Pair timedOut = proxy.awaitClosed(1).getFirst();
      assertThat(timedOut.cause()).isEqualTo(CloseCause.PROXY_PROTOCOL_TIMEOUT);
      assertThat(timedOut.causeDetail()).contains("within 300 ms").contains("20 B received");
      assertThat(timedOut.facts().clientAddress()).isEqualTo(loopbackPeer(slow));
      assertThat(proxy.listener("front").stats().closedCount(CloseCause.PROXY_PROTOCOL_TIMEOUT))
          .isEqualTo(1);
      assertThat(proxy.listener("front").stats().openCount()).isEqualTo(1); // the bystander
    }
  }

  @Test
  void aMalformedHeaderClosesOnlyItsConnectionWithTheReason() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = ProxyFixture.start(yaml(echoAddress(echo), TRUST_LOOPBACK), dir);
        Socket bystander = connect(proxy)) {
      bystander.getOutputStream().write(concat(V1, ascii("still here")));
      assertThat(bystander.getInputStream().readNBytes(10)).isEqualTo(ascii("still here"));
      String[][] cases = {
        {"PROXY TCP4 999.0.0.1 192.0.2.10 1 2\r\n", "999.0.0.1"},
        {"PROXY TCP9 1.2.3.4 5.6.7.8 1 2\r\n", "unknown PROXY v1 protocol"},
        {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "not a PROXY protocol header"},
      };
      for (String[] bad : cases) {
        try (Socket client = connect(proxy)) {
          client.getOutputStream().write(ascii(bad[0]));
          assertThat(readToEnd(client)).as(bad[0]).isEmpty();
        }
      }
      List<Pair> closed = proxy.awaitClosed(cases.length);
      for (int i = 0; i < cases.length; i++) {
        String expected = cases[i][1];
        assertThat(closed)
            .as(cases[i][0])
            .anySatisfy(
                p -> {
                  assertThat(p.cause()).isEqualTo(CloseCause.PROXY_PROTOCOL_INVALID);
                  assertThat(p.causeDetail()).contains(expected);
                });
      }
      bystander.getOutputStream().write(ascii("again"));
      assertThat(bystander.getInputStream().readNBytes(5)).isEqualTo(ascii("again"));
      assertThat(echo.accepted()).isEqualTo(1); // no refused connection reached the upstream
    }
  }

  @Test
  void aPeerThatIsNotTrustedIsRefusedBeforeItsFirstByte() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "{trustedSources: [10.0.0.0/8]}"), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(concat(V1, ascii("x")));
      assertThat(readToEnd(client)).isEmpty();
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.PROXY_PROTOCOL_UNTRUSTED);
      assertThat(pair.causeDetail()).contains("127.0.0.1").contains("not a trusted source");
      assertThat(pair.facts().proxyHeader()).isNull();
      assertThat(upstream.waiting()).isZero();
    }
  }

  @Test
  void aTrustedPeerWithoutAHeaderIsRefusedUnlessTheHeaderIsOptional() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      try (ProxyFixture proxy = ProxyFixture.start(yaml(echoAddress(echo), TRUST_LOOPBACK), dir);
          Socket client = connect(proxy)) {
        client.getOutputStream().write(ascii("hello"));
        assertThat(readToEnd(client)).isEmpty();
        Pair pair = proxy.awaitClosed(1).getFirst();
        assertThat(pair.cause()).isEqualTo(CloseCause.PROXY_PROTOCOL_INVALID);
        assertThat(pair.causeDetail()).contains("not a PROXY protocol header");
      }
      String optional = "{trustedSources: [127.0.0.0/8], optional: true}";
      try (ProxyFixture proxy = ProxyFixture.start(yaml(echoAddress(echo), optional), dir)) {
        try (Socket direct = connect(proxy)) {
          direct.getOutputStream().write(ascii("hello"));
          assertThat(direct.getInputStream().readNBytes(5)).isEqualTo(ascii("hello"));
        }
        try (Socket relayed = connect(proxy)) {
          relayed.getOutputStream().write(concat(V1, ascii("relayed")));
          assertThat(relayed.getInputStream().readNBytes(7)).isEqualTo(ascii("relayed"));
        }
        List<Pair> closed = proxy.awaitClosed(2);
        assertThat(closed)
            .extracting(
                p -> ((InetSocketAddress) p.facts().clientAddress()).getAddress().getHostAddress())
            .containsExactlyInAnyOrder("127.0.0.1", "203.0.113.7");
      }
    }
  }

  @Test
  void withOptionalHeadersAnUntrustedPeerConnectsAsItselfAndMayNotSendOne() throws Exception {
    String optional = "{trustedSources: [10.0.0.0/8], optional: true, timeout: 200ms}";
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), optional), dir)) {
      try (Socket spoofer = connect(proxy)) {
        spoofer.getOutputStream().write(concat(V1, ascii("x")));
        assertThat(readToEnd(spoofer)).isEmpty();
      }
      Pair refused = proxy.awaitClosed(1).getFirst();
      assertThat(refused.cause()).isEqualTo(CloseCause.PROXY_PROTOCOL_UNTRUSTED);
      assertThat(refused.causeDetail()).contains("sent a PROXY protocol header");

      // A protocol in which the server speaks first: nothing comes from the client, so after the
      // header's time it connects as itself and hears the upstream's greeting.
      try (Socket quiet = connect(proxy);
          Socket up = upstream.next()) {
        up.getOutputStream().write(ascii("220 ready\r\n"));
        assertThat(quiet.getInputStream().readNBytes(11)).isEqualTo(ascii("220 ready\r\n"));
        quiet.getOutputStream().write(ascii("QUIT\r\n"));
        up.setSoTimeout(timeoutMillis());
        assertThat(up.getInputStream().readNBytes(6)).isEqualTo(ascii("QUIT\r\n"));
      }
      Pair direct = proxy.awaitClosed(2).get(1);
      assertThat(direct.facts().proxyHeader()).isNull();
      assertThat(
              ((InetSocketAddress) direct.facts().clientAddress()).getAddress().isLoopbackAddress())
          .isTrue();
    }
  }

  @Test
  void aLocalHeaderLeavesThePeersAddress() throws Exception {
    byte[] local = V2Bytes.proxy(0x00).versionCommand(0x20).build(false);
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = ProxyFixture.start(yaml(echoAddress(echo), TRUST_LOOPBACK), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(concat(local, ascii("check")));
      assertThat(client.getInputStream().readNBytes(5)).isEqualTo(ascii("check"));
      client.shutdownOutput();
      readToEnd(client);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().proxyHeader().command()).isEqualTo(ProxyHeader.Command.LOCAL);
      assertThat(pair.facts().clientAddress()).isEqualTo(pair.facts().peerAddress());
    }
  }

  @Test
  void addressLimitsJudgeTheClientTheHeaderNames() throws Exception {
    String limits = "    limits: {deny: [203.0.113.0/24], perSourceAddress: 1}";
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(yaml(echoAddress(echo), TRUST_LOOPBACK, limits), dir)) {
      try (Socket denied = connect(proxy)) {
        denied.getOutputStream().write(concat(V1, ascii("x")));
        assertThat(readToEnd(denied)).isEmpty();
      }
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.DENIED);
      // Two clients behind the same load balancer are two addresses: both get in.
      byte[] a = ascii("PROXY TCP4 198.51.100.1 192.0.2.10 1000 443\r\n");
      byte[] b = ascii("PROXY TCP4 198.51.100.2 192.0.2.10 1000 443\r\n");
      try (Socket first = connect(proxy);
          Socket second = connect(proxy);
          Socket third = connect(proxy)) {
        first.getOutputStream().write(concat(a, ascii("1")));
        second.getOutputStream().write(concat(b, ascii("2")));
        assertThat(first.getInputStream().readNBytes(1)).isEqualTo(ascii("1"));
        assertThat(second.getInputStream().readNBytes(1)).isEqualTo(ascii("2"));
        third.getOutputStream().write(concat(a, ascii("3"))); // a second from 198.51.100.1
        assertThat(readToEnd(third)).isEmpty();
        assertThat(proxy.awaitClosed(2).get(1).cause()).isEqualTo(CloseCause.SOURCE_LIMIT);
      }
    }
  }

  @Test
  void theHeaderComesBeforeTheTlsHandshakeOfATerminatingListener() throws Exception {
    TestPki pki = TestPki.get();
    String tls = "    tls: {certificates: [{cert: \"%s\", key: \"%s\"}], alpn: [h2]}";
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(
                    echoAddress(echo),
                    TRUST_LOOPBACK,
                    tls.formatted(pki.serverCert, pki.serverKey)),
                dir);
        Socket raw = connect(proxy)) {
      raw.getOutputStream().write(V1); // in clear, then TLS on the same connection
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, pki.caTrust().trustManagers(), null);
      InetSocketAddress at = (InetSocketAddress) proxy.address("front");
      try (SSLSocket secure =
          (SSLSocket)
              context
                  .getSocketFactory()
                  .createSocket(raw, "localhost", at.getPort(), /* autoClose */ true)) {
        SSLParameters p = secure.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName("localhost")));
        p.setApplicationProtocols(new String[] {"h2"});
        secure.setSSLParameters(p);
        secure.getOutputStream().write(ascii("over tls"));
        secure.getOutputStream().flush();
        assertThat(secure.getInputStream().readNBytes(8)).isEqualTo(ascii("over tls"));
      }
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().serverName()).isEqualTo("localhost");
      assertThat(pair.facts().applicationProtocol()).isEqualTo("h2");
      assertThat(((InetSocketAddress) pair.facts().clientAddress()).getPort()).isEqualTo(51234);
    }
  }

  @Test
  void theHeaderComesBeforeThePassthroughClientHelloWhichReachesTheUpstreamUntouched()
      throws Exception {
    String passthrough = "    tls: {passthrough: true}";
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), TRUST_LOOPBACK, passthrough), dir);
        Socket raw = connect(proxy)) {
      raw.getOutputStream().write(V1);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, TestPki.get().caTrust().trustManagers(), null);
      InetSocketAddress at = (InetSocketAddress) proxy.address("front");
      SSLSocket secure =
          (SSLSocket) context.getSocketFactory().createSocket(raw, "localhost", at.getPort(), true);
      SSLParameters p = secure.getSSLParameters();
      p.setServerNames(List.of(new SNIHostName("passthrough.test")));
      secure.setSSLParameters(p);
      // The handshake cannot finish (the upstream here only reads): it runs on its own thread.
      Thread handshake =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      secure.startHandshake();
                    } catch (IOException expected) {
                      // the test closes the connection under it
                    }
                  });
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        byte[] record = up.getInputStream().readNBytes(5);
        assertThat(record[0]).as("a TLS handshake record, not the header").isEqualTo((byte) 0x16);
        assertThat(record[1]).isEqualTo((byte) 0x03);
      }
      secure.close();
      handshake.join(timeoutMillis());
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().serverName()).isEqualTo("passthrough.test");
      assertThat(((InetSocketAddress) pair.facts().clientAddress()).getPort()).isEqualTo(51234);
    }
  }

  // ---- helpers ----

  static Socket connect(ProxyFixture proxy) throws IOException {
    InetSocketAddress at = (InetSocketAddress) proxy.address("front");
    Socket s = new Socket(at.getAddress(), at.getPort());
    s.setSoTimeout(timeoutMillis());
    return s;
  }

  static int timeoutMillis() {
    return (int) Await.PATIENCE.toMillis();
  }

  private static int localPort(Socket s) {
    return s.getLocalPort();
  }

  private static SocketAddress loopbackPeer(Socket s) {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
  }

  /** What the proxy sends before it closes (a reset counts as the end). */
  static byte[] readToEnd(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      return in.readAllBytes();
    } catch (SocketException reset) {
      return new byte[0];
    }
  }

  static String echoAddress(EchoServer echo) {
    InetSocketAddress a = (InetSocketAddress) echo.address();
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
