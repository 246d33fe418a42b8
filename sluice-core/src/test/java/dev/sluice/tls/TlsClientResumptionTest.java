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
    long sessionsBefore = OpenSslClientContext.liveSessionCount();
    try (TlsInteropTest.Peer server = sServer(protocol)) {
      InetSocketAddress address = acceptAddress(server);
      TlsClient client = TlsClient.create(clientConfig().withEngine(TlsEngineKind.OPENSSL));
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

  /**
   * Beyond its size the cache forgets the server used least recently: with room for one, a second
   * server's session pushes out the first's, whose next connection is a full handshake (TLS 1.2,
   * whose session stays in the cache when offered, as the JDK's does).
   */
  @ParameterizedTest
  @ValueSource(strings = {"JDK", "OPENSSL"})
  void beyondItsSizeTheCacheForgetsTheLeastRecentlyUsedServer(TlsEngineKind engine)
      throws Exception {
    TestPki.requireTool("openssl", "version");
    if (engine == TlsEngineKind.OPENSSL) {
      assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine").isNull();
    }
    EventLoopGroup group = group();
    try (TlsInteropTest.Peer first = sServer("TLSv1.2");
        TlsInteropTest.Peer second = sServer("TLSv1.2")) {
      InetSocketAddress a = acceptAddress(first);
      InetSocketAddress b = acceptAddress(second);
      TlsClient client = TlsClient.create(clientConfig().withEngine(engine), 1);
      assertThat(page(group, client, a)).contains("New, ");
      assertThat(page(group, client, a)).contains("Reused, ");
      assertThat(page(group, client, b)).contains("New, ");
      assertThat(client.cachedSessions()).isEqualTo(1);
      assertThat(page(group, client, a)).as("b's session pushed a's out").contains("New, ");
      assertThat(page(group, client, a)).contains("Reused, ");
      client.clearSessions();
    }
  }

  @Test
  void aCacheOfNoneNeverResumesOnOpensslAndIsRefusedOnTheJdk() throws Exception {
    TestPki.requireTool("openssl", "version");
    assertThatThrownBy(() -> TlsClient.create(clientConfig().withEngine(TlsEngineKind.JDK), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs the OpenSSL engine");
    assertThatThrownBy(() -> TlsClient.create(clientConfig(), -1))
        .isInstanceOf(IllegalArgumentException.class);
    assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine").isNull();
    EventLoopGroup group = group();
    try (TlsInteropTest.Peer server = sServer("TLSv1.2")) {
      InetSocketAddress address = acceptAddress(server);
      TlsClient client = TlsClient.create(clientConfig().withEngine(TlsEngineKind.OPENSSL), 0);
      assertThat(page(group, client, address)).contains("New, ");
      assertThat(page(group, client, address)).contains("New, ");
      assertThat(client.cachedSessions()).isZero();
    }
  }

  private TlsInteropTest.Peer sServer(String protocol) throws java.io.IOException {
    return TlsInteropTest.opensslServer(
        pki, "-www", protocol.equals("TLSv1.3") ? "-tls1_3" : "-tls1_2");
  }

  private static InetSocketAddress acceptAddress(TlsInteropTest.Peer server)
      throws InterruptedException {
    return new InetSocketAddress("127.0.0.1", TlsInteropTest.acceptPort(server));
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
