package dev.sluice.proxy.proxyprotocol;

import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.ascii;
import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.readToEnd;
import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.timeoutMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.TestPki;
import dev.sluice.tls.KeyMaterial;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clusters that send PROXY protocol headers, checked byte for byte at a test upstream on loopback:
 * v1 and v2 with the client's and listener's addresses; v2's ALPN, authority and SSL TLVs (with the
 * verified client certificate's CN) when the listener terminated mutual TLS; the original client of
 * a header received passed on; the header in clear before the upstream TLS handshake; health
 * checks' LOCAL header.
 */
class SendProxyProtocolTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  private static String yaml(String listenerExtra, String upstream, String clusterExtra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: app
        %s
        clusters:
          - name: app
            upstreams: [{address: "%s"}]
            retries: {tries: 1}
        %s
        """
        .formatted(listenerExtra, upstream, clusterExtra);
  }

  @Test
  void aV1ClusterSendsTheClientAndListenerAddressesFirst() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml("", upstream.address(), "    proxyProtocol: v1"), dir);
        Socket client = AcceptProxyProtocolTest.connect(proxy)) {
      client.getOutputStream().write(ascii("payload"));
      int listenerPort = ((InetSocketAddress) proxy.address("front")).getPort();
      String expected =
          "PROXY TCP4 127.0.0.1 127.0.0.1 " + client.getLocalPort() + " " + listenerPort + "\r\n";
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        assertThat(up.getInputStream().readNBytes(expected.length() + 7))
            .asString(StandardCharsets.US_ASCII)
            .isEqualTo(expected + "payload");
      }
    }
  }

  @Test
  void aV2ClusterSendsTheAddressesInBinaryWithoutTlvsForPlainTcp() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml("", upstream.address(), "    proxyProtocol: v2"), dir);
        Socket client = AcceptProxyProtocolTest.connect(proxy)) {
      client.getOutputStream().write(ascii("payload"));
      int listenerPort = ((InetSocketAddress) proxy.address("front")).getPort();
      ByteBuffer expected = ByteBuffer.allocate(28 + 7);
      expected.put(ProxyHeaderParser.V2_SIGNATURE).put((byte) 0x21).put((byte) 0x11);
      expected.putShort((short) 12);
      expected.put(new byte[] {127, 0, 0, 1, 127, 0, 0, 1});
      expected.putShort((short) client.getLocalPort()).putShort((short) listenerPort);
      expected.put(ascii("payload"));
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        assertThat(up.getInputStream().readNBytes(35)).isEqualTo(expected.array());
      }
    }
  }

  @Test
  void afterMutualTlsTheV2HeaderCarriesAlpnAuthorityAndTheClientCertificatesCn() throws Exception {
    String tls =
        """
            tls:
              certificates: [{cert: "%s", key: "%s"}]
              alpn: [h2, http/1.1]
              clientAuth: required
              clientCa: "%s"
        """
            .formatted(pki.serverCert, pki.serverKey, pki.caCert);
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(tls, upstream.address(), "    proxyProtocol: v2"), dir);
        SSLSocket client = tlsClient(proxy, true)) {
      client.getOutputStream().write(ascii("after the header"));
      client.getOutputStream().flush();
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        DataInputStream in = new DataInputStream(up.getInputStream());
        byte[] fixed = in.readNBytes(16);
        assertThat(java.util.Arrays.copyOf(fixed, 12)).isEqualTo(ProxyHeaderParser.V2_SIGNATURE);
        assertThat(fixed[12]).isEqualTo((byte) 0x21); // v2, PROXY
        assertThat(fixed[13]).isEqualTo((byte) 0x11); // TCP over IPv4
        int length = ((fixed[14] & 0xff) << 8) | (fixed[15] & 0xff);
        byte[] body = in.readNBytes(length);
        ByteBuffer addresses = ByteBuffer.wrap(body, 0, 12);
        assertThat(addresses.getInt()).isEqualTo(0x7f000001);
        assertThat(addresses.getInt()).isEqualTo(0x7f000001);
        assertThat(addresses.getShort() & 0xffff).isEqualTo(client.getLocalPort());
        Map<Integer, byte[]> tlvs = tlvs(ByteBuffer.wrap(body, 12, body.length - 12).slice());
        // and the client's JA3 and JA4 in the default types
        assertThat(tlvs.keySet()).containsExactly(Tlv.ALPN, Tlv.AUTHORITY, Tlv.SSL, 0xE0, 0xE1);
        assertThat(tlvs.get(Tlv.ALPN)).asString(StandardCharsets.US_ASCII).isEqualTo("h2");
        assertThat(tlvs.get(Tlv.AUTHORITY))
            .asString(StandardCharsets.US_ASCII)
            .isEqualTo("localhost");
        ByteBuffer ssl = ByteBuffer.wrap(tlvs.get(Tlv.SSL));
        assertThat(ssl.get()).isEqualTo((byte) 0x07); // over TLS, a certificate, this session
        assertThat(ssl.getInt()).isZero(); // verified
        Map<Integer, byte[]> sub = tlvs(ssl.slice());
        assertThat(sub.get(Tlv.SSL_VERSION)).asString(StandardCharsets.US_ASCII).startsWith("TLS");
        assertThat(sub.get(Tlv.SSL_CN)).asString(StandardCharsets.UTF_8).isEqualTo("test-client");
        assertThat(sub.get(Tlv.SSL_CIPHER))
            .asString(StandardCharsets.US_ASCII)
            .isEqualTo(client.getSession().getCipherSuite());
        assertThat(in.readNBytes(16)).isEqualTo(ascii("after the header"));
      }
    }
  }

  @Test
  void withoutAClientCertificateTheSslTlvSaysSoAndCarriesNoCn() throws Exception {
    String tls =
        "    tls: {certificates: [{cert: \"%s\", key: \"%s\"}]}"
            .formatted(pki.serverCert, pki.serverKey);
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(tls, upstream.address(), "    proxyProtocol: v2"), dir);
        SSLSocket client = tlsClient(proxy, false)) {
      client.getOutputStream().write(ascii("x"));
      client.getOutputStream().flush();
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        DataInputStream in = new DataInputStream(up.getInputStream());
        byte[] fixed = in.readNBytes(16);
        byte[] body = in.readNBytes(((fixed[14] & 0xff) << 8) | (fixed[15] & 0xff));
        Map<Integer, byte[]> tlvs = tlvs(ByteBuffer.wrap(body, 12, body.length - 12).slice());
        // no ALPN negotiated
        assertThat(tlvs.keySet()).containsExactly(Tlv.AUTHORITY, Tlv.SSL, 0xE0, 0xE1);
        ByteBuffer ssl = ByteBuffer.wrap(tlvs.get(Tlv.SSL));
        assertThat(ssl.get()).isEqualTo((byte) 0x01); // over TLS, no certificate
        assertThat(ssl.getInt()).isNotZero();
        assertThat(tlvs(ssl.slice())).doesNotContainKey(Tlv.SSL_CN);
      }
    }
  }

  @Test
  void aHeaderReceivedIsPassedOnWithItsOriginalClient() throws Exception {
    String accept = "    proxyProtocol: {trustedSources: [127.0.0.0/8]}";
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(accept, upstream.address(), "    proxyProtocol: v1"), dir);
        Socket client = AcceptProxyProtocolTest.connect(proxy)) {
      client.getOutputStream().write(ascii("PROXY TCP6 2001:db8::7 2001:db8::1 4000 443\r\nrest"));
      try (Socket up = upstream.next()) {
        up.setSoTimeout(timeoutMillis());
        String expected = "PROXY TCP6 2001:db8::7 2001:db8::1 4000 443\r\nrest";
        assertThat(up.getInputStream().readNBytes(expected.length()))
            .asString(StandardCharsets.US_ASCII)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void theHeaderGoesInClearBeforeTheUpstreamTlsHandshake() throws Exception {
    SSLContext server = SSLContext.getInstance("TLS");
    server.init(keyManagers(KeyMaterial.fromPem(pki.serverCert, pki.serverKey)), null, null);
    try (ServerSocket listen = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      // The upstream reads the v1 line in clear, then runs TLS on the same connection and echoes.
      CompletableFuture<String> seen = new CompletableFuture<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try (Socket raw = listen.accept()) {
                  raw.setSoTimeout(timeoutMillis());
                  String line = readLine(raw.getInputStream());
                  seen.complete(line);
                  try (SSLSocket tls =
                      (SSLSocket)
                          server.getSocketFactory().createSocket(raw, null, /* autoClose */ true)) {
                    tls.setUseClientMode(false);
                    byte[] got = tls.getInputStream().readNBytes(5);
                    tls.getOutputStream().write(got);
                    tls.getOutputStream().flush();
                    tls.getInputStream().read(); // until the proxy ends
                  }
                } catch (IOException e) {
                  seen.completeExceptionally(e);
                }
              });
      String cluster =
          """
              proxyProtocol: v1
              tls: {ca: "%s", serverName: localhost}
          """
              .formatted(pki.caCert);
      try (ProxyFixture proxy =
              ProxyFixture.start(yaml("", "127.0.0.1:" + listen.getLocalPort(), cluster), dir);
          Socket client = AcceptProxyProtocolTest.connect(proxy)) {
        client.getOutputStream().write(ascii("hello"));
        assertThat(client.getInputStream().readNBytes(5)).isEqualTo(ascii("hello"));
        assertThat(seen.get(timeoutMillis(), TimeUnit.MILLISECONDS))
            .startsWith("PROXY TCP4 127.0.0.1 127.0.0.1 " + client.getLocalPort() + " ");
      }
    }
  }

  @Test
  void healthChecksSendTheHeaderOfTheirOwnConnection() throws Exception {
    String check = "    healthCheck: {type: tcp, interval: 100ms, timeout: 1s, rise: 1, fall: 1}";
    byte[] v2Local = new byte[16];
    System.arraycopy(ProxyHeaderParser.V2_SIGNATURE, 0, v2Local, 0, 12);
    v2Local[12] = 0x20; // v2, LOCAL; family, protocol and length all 0
    for (Object[] each : new Object[][] {{"v2", v2Local}, {"v1", ascii("PROXY UNKNOWN\r\n")}}) {
      try (ScriptedUpstream upstream = ScriptedUpstream.start();
          ProxyFixture proxy =
              ProxyFixture.start(
                  yaml("", upstream.address(), check + "\n    proxyProtocol: " + each[0]), dir)) {
        byte[] expected = (byte[]) each[1];
        try (Socket probe = upstream.next()) {
          probe.setSoTimeout(timeoutMillis());
          assertThat(probe.getInputStream().readNBytes(expected.length))
              .as("a %s health check", each[0])
              .isEqualTo(expected);
          assertThat(readToEnd(probe)).isEmpty(); // a tcp check sends nothing else
        }
        dev.sluice.proxy.cluster.UpstreamTarget target =
            proxy.runtime().clusters().get("app").upstreams().getFirst();
        dev.sluice.testing.Await.until(
            () -> target.health().lastProblem() == null && target.available(System.nanoTime()),
            () -> "the upstream to pass its checks: " + target.health().lastProblem());
      }
    }
  }

  // ---- helpers ----

  /** Type to value of each TLV, in order, walking the bytes by the specification's framing. */
  private static Map<Integer, byte[]> tlvs(ByteBuffer b) {
    Map<Integer, byte[]> found = new LinkedHashMap<>();
    while (b.remaining() >= 3) {
      int type = b.get() & 0xff;
      int length = b.getShort() & 0xffff;
      byte[] value = new byte[length];
      b.get(value);
      found.put(type, value);
    }
    assertThat(b.remaining()).as("bytes after the last TLV").isZero();
    return found;
  }

  private SSLSocket tlsClient(ProxyFixture proxy, boolean withCertificate) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        withCertificate ? keyManagers(KeyMaterial.fromPem(pki.clientCert, pki.clientKey)) : null,
        pki.caTrust().trustManagers(),
        null);
    InetSocketAddress at = (InetSocketAddress) proxy.address("front");
    SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket(at.getAddress(), at.getPort());
    socket.setSoTimeout(timeoutMillis());
    SSLParameters p = socket.getSSLParameters();
    p.setServerNames(List.of(new SNIHostName("localhost")));
    if (withCertificate) {
      p.setApplicationProtocols(new String[] {"h2"});
    }
    socket.setSSLParameters(p);
    socket.startHandshake();
    return socket;
  }

  private static javax.net.ssl.KeyManager[] keyManagers(KeyMaterial material) throws Exception {
    char[] password = "unused".toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "key",
        material.key(),
        password,
        material.chain().toArray(new java.security.cert.Certificate[0]));
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, password);
    return factory.getKeyManagers();
  }

  /** One CRLF-terminated line, read a byte at a time so nothing after it is consumed. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      line.write(c);
      if (c == '\n') {
        break;
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }
}
