package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import dev.sluice.tls.openssl.OpenSslClientContext;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client on OpenSSL resumes its session with a server it connected to before, as the JDK's does,
 * against a real {@code openssl s_server -www}, whose page says "Reused" or "New" of each
 * connection; the sessions it keeps are freed with it. Given no CA, it trusts what the JDK's client
 * would: the JVM's default authorities, not the system's OpenSSL paths.
 */
class TlsClientResumptionTest extends TlsTestBase {

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void theSecondConnectionToAServerResumes(String protocol) throws Exception {
    TestPki.requireTool("openssl", "version");
    assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine").isNull();
    EventLoopGroup group = group();
    List<String> command =
        List.of(
            "openssl",
            "s_server",
            "-accept",
            "127.0.0.1:0",
            "-cert",
            pki.serverCert.toString(),
            "-key",
            pki.serverKey.toString(),
            "-www",
            protocol.equals("TLSv1.3") ? "-tls1_3" : "-tls1_2");
    long sessionsBefore = OpenSslClientContext.liveSessionCount();
    try (TlsInteropTest.Peer server = new TlsInteropTest.Peer(command)) {
      int port = Integer.parseInt(server.awaitOutput("ACCEPT 127\\.0\\.0\\.1:(\\d+)").group(1));
      TlsClient client = TlsClient.create(clientConfig().withEngine(TlsEngineKind.OPENSSL));
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
      assertThat(page(group, client, address)).contains("New, " + protocol);
      assertThat(page(group, client, address)).contains("Reused, " + protocol);
      assertThat(page(group, client, address))
          .as("a TLS 1.3 ticket is used once; the server's next one resumes the third")
          .contains("Reused, " + protocol);
      assertThat(client.cachedSessions()).isEqualTo(1);
      assertThat(OpenSslClientContext.liveSessionCount()).isGreaterThan(sessionsBefore);
      client.clearSessions();
      assertThat(OpenSslClientContext.liveSessionCount()).isEqualTo(sessionsBefore);
      assertThat(page(group, client, address)).contains("New, " + protocol);
      client.clearSessions();
    }
  }

  @Test
  void withoutACaTheOpensslClientTrustsTheJvmsDefaultAuthorities() throws Exception {
    assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine").isNull();
    EventLoopGroup group = group();
    Listener listener = listen(group, serverConfig(), RecordingHandler::new);
    TlsClientConfig noCa =
        TlsClientConfig.defaults().withServerName("localhost").withEngine(TlsEngineKind.OPENSSL);
    // The JVM's cacerts do not hold the test CA: refused, as by the JDK's client.
    assertThatThrownBy(() -> connect(group, noCa, listener, new RecordingHandler()))
        .hasCauseInstanceOf(TlsHandshakeException.class)
        .cause()
        .hasMessageContaining("unable to get local issuer certificate");
    // A trust store that holds it, named as the JVM's default: trusted.
    Map<String, String> trustStore =
        Map.of(
            "javax.net.ssl.trustStore",
            pki.caTrustP12.toString(),
            "javax.net.ssl.trustStorePassword",
            new String(TestPki.PASSWORD),
            "javax.net.ssl.trustStoreType",
            "PKCS12");
    Map<String, String> before = new HashMap<>();
    trustStore.keySet().forEach(key -> before.put(key, System.getProperty(key)));
    try {
      trustStore.forEach(System::setProperty);
      TlsConnection connection = connect(group, noCa, listener, new RecordingHandler());
      assertThat(connection.session().getPeerPrincipal().getName()).isEqualTo("CN=localhost");
      connection.close();
    } finally {
      before.forEach(
          (key, value) -> {
            if (value == null) {
              System.clearProperty(key);
            } else {
              System.setProperty(key, value);
            }
          });
    }
  }

  private static String page(EventLoopGroup group, TlsClient client, InetSocketAddress address)
      throws Exception {
    RecordingHandler handler = new RecordingHandler();
    TlsConnection connection =
        await(client.connect(group, address, SocketOptions.defaults(), handler));
    await(
        connection.write(
            ByteBuffer.wrap("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
    await(handler.endOfInput());
    await(handler.closed());
    return handler.text();
  }
}
