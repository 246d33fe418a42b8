package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Sha256;
import dev.sluice.testing.TlsTestBase;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TlsBasicsTest extends TlsTestBase {

  static ByteBuffer ascii(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void echoesAndClosesWithCloseNotify(String protocol) throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          protected void onBytes(Connection connection, byte[] bytes) {
            super.onBytes(connection, bytes);
            connection.write(ByteBuffer.wrap(bytes));
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols(protocol), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);

    assertThat(connection.session().getProtocol()).isEqualTo(protocol);
    var echoed = client.expect(5);
    await(connection.write(ascii("hello")));
    await(echoed);
    assertThat(client.text()).isEqualTo("hello");

    connection.close();
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    await(server.endOfInput());
    assertThat(await(server.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 20_000, 40_000, 1 << 20})
  void runsOverUnixDomainSocketsWithExactSizeChunks(int size, @TempDir Path dir) throws Exception {
    EventLoopGroup group = group();
    ByteBuffer payload = new PayloadPattern(size).buffer(size, false);
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onActive(Connection connection) {
            super.onActive(connection);
            connection.write(payload.duplicate());
            connection.shutdownOutput();
          }
        };
    Listener listener =
        TlsServer.create(serverConfig())
            .listen(
                group,
                UnixDomainSocketAddress.of(dir.resolve("tls.sock")),
                SocketOptions.defaults(),
                () -> server);
    RecordingHandler client = new RecordingHandler();
    var hash = client.expect(size);
    // No host to take a name from: the server name is given.
    await(
        TlsClient.create(clientConfig())
            .connect(group, listener.localAddress(), SocketOptions.defaults(), client));

    assertThat(await(hash)).isEqualTo(Sha256.hex(payload));
    await(client.endOfInput());
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(client.violations()).isEmpty();
    listener.close();
  }

  /**
   * A 1024-bit RSA certificate, which Debian's OpenSSL policy (SECLEVEL=2) refuses and the JDK
   * takes: auto serves it on the JDK, an explicit openssl fails with OpenSSL's reason.
   */
  @Test
  void autoServesOnTheJdkWhatOpenSslRefuses(@TempDir Path dir) throws Exception {
    Path cert = dir.resolve("weak.pem");
    Path key = dir.resolve("weak.key");
    Process p =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:1024",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-subj",
                "/CN=localhost",
                "-days",
                "2",
                "-addext",
                "subjectAltName=DNS:localhost")
            .redirectErrorStream(true)
            .start();
    p.getInputStream().readAllBytes();
    assertThat(p.waitFor()).isZero();
    TlsServerConfig config = TlsServerConfig.of(KeyMaterial.fromPem(cert, key));
    org.assertj.core.api.Assumptions.assumeThat(TlsEngineKind.openSslUnavailableReason()).isNull();
    org.assertj.core.api.Assumptions.assumeThat(onBoringSsl())
        .as("BoringSSL has no security level: it takes an RSA-1024 key, as the JDK does")
        .isFalse();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> TlsServer.create(config.withEngine(TlsEngineKind.OPENSSL)))
        .isInstanceOf(java.security.GeneralSecurityException.class)
        .hasMessageContaining("key too small");
    TlsServer server = TlsServer.create(config.withEngine(TlsEngineKind.AUTO));
    assertThat(server.engine()).isEqualTo(TlsEngineKind.JDK);
    EventLoopGroup group = group();
    Listener listener = listen(group, config.withEngine(TlsEngineKind.AUTO), RecordingHandler::new);
    TlsConnection connection =
        connect(
            group,
            TlsClientConfig.trusting(TrustMaterial.fromPem(cert)).withServerName("localhost"),
            listener,
            new RecordingHandler());
    assertThat(connection.isOpen()).isTrue();
  }

  @Test
  void autoRunsAClientOnTheJdkAndOpenSslOnlyWhenAskedFor() throws Exception {
    TlsClientConfig config = TlsClientConfig.trusting(TrustMaterial.fromPem(pki.caCert));
    assertThat(TlsClient.create(config.withEngine(TlsEngineKind.AUTO)).engine())
        .isEqualTo(TlsEngineKind.JDK);
    if (TlsEngineKind.openSslUnavailableReason() == null) {
      assertThat(TlsClient.create(config.withEngine(TlsEngineKind.OPENSSL)).engine())
          .isEqualTo(TlsEngineKind.OPENSSL);
    }
  }

  @Test
  void refusedConnectFailsTheFutureWithAConnectException() throws Exception {
    EventLoopGroup group = group();
    int port = FreePorts.loopback();
    RecordingHandler handler = new RecordingHandler();
    var future =
        TlsClient.create(clientConfig())
            .connect(
                group, new InetSocketAddress("127.0.0.1", port), SocketOptions.defaults(), handler);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> await(future))
        .cause()
        .isInstanceOf(ConnectException.class);
    assertThat(handler.tlsActive()).isNotDone();
  }

  @Test
  void idleTimeoutClosesAnIdleTlsConnection() throws Exception {
    EventLoopGroup group = group(TransportConfig.defaults().withEventLoops(2));
    RecordingHandler server = new RecordingHandler();
    Listener listener =
        TlsServer.create(serverConfig())
            .listen(
                group,
                LOOPBACK,
                SocketOptions.defaults().withIdleTimeout(Duration.ofMillis(1500)),
                () -> server);
    RecordingHandler client = new RecordingHandler();
    connect(group, clientConfig(), listener, client);

    assertThat(await(server.closed())).isEqualTo(new CloseReason.IdleTimeout(1500));
    // The server's transport closed without close_notify: to the client, a truncation.
    assertThat(await(client.closed())).isInstanceOf(CloseReason.TlsFailure.class);
    listener.close();
  }
}
