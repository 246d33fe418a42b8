package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionClosedException;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Sha256;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TlsFeaturesTest extends TlsTestBase {

  static ByteBuffer ascii(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static String subject(TlsConnection connection) throws Exception {
    return ((X509Certificate) connection.session().getPeerCertificates()[0])
        .getSubjectX500Principal()
        .getName();
  }

  @ParameterizedTest(name = "server {0}, client {1} -> {2}")
  @CsvSource({
    "h2;http/1.1, http/1.1, http/1.1",
    "h2;http/1.1, h2;http/1.1, h2",
    "http/1.1, h2;http/1.1, http/1.1",
    "'', h2, ''",
    "h2, '', ''"
  })
  void negotiatesAlpn(String server, String client, String expected) throws Exception {
    EventLoopGroup group = group();
    RecordingHandler serverHandler = new RecordingHandler();
    Listener listener =
        listen(group, serverConfig().withApplicationProtocols(split(server)), () -> serverHandler);
    TlsConnection connection =
        connect(
            group,
            clientConfig().withApplicationProtocols(split(client)),
            listener,
            new RecordingHandler());
    String want = expected.isEmpty() ? null : expected;
    assertThat(connection.applicationProtocol()).isEqualTo(want);
    assertThat(await(serverHandler.tlsActive()).applicationProtocol()).isEqualTo(want);
  }

  private static String[] split(String list) {
    return list.isEmpty() ? new String[0] : list.split(";");
  }

  @Test
  void noCommonAlpnProtocolFailsTheHandshake() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server = new RecordingHandler();
    Listener listener = listen(group, serverConfig().withApplicationProtocols("h2"), () -> server);
    var future =
        TlsClient.create(clientConfig().withApplicationProtocols("http/1.1"))
            .connect(
                group, listener.localAddress(), SocketOptions.defaults(), new RecordingHandler());
    assertThatThrownBy(() -> await(future)).cause().isInstanceOf(TlsHandshakeException.class);
    assertThat(((CloseReason.TlsFailure) await(server.handshakeFailed())).detail())
        .contains("no_application_protocol");
  }

  @ParameterizedTest(name = "SNI {0} -> {1}")
  @CsvSource({
    "localhost, CN=localhost",
    "other.test, CN=other.test",
    "a.wild.test, CN=other.test",
    "OTHER.test, CN=other.test",
  })
  void choosesTheCertificateByServerName(String serverName, String expectedSubject)
      throws Exception {
    EventLoopGroup group = group();
    KeyMaterial other = KeyMaterial.fromPem(pki.otherCert, pki.otherKey);
    Listener listener =
        listen(
            group,
            serverConfig().withServerName("other.test", other).withServerName("*.wild.test", other),
            RecordingHandler::new);
    TlsConnection connection =
        connect(group, clientConfig().withServerName(serverName), listener, new RecordingHandler());
    assertThat(subject(connection)).isEqualTo(expectedSubject);
  }

  @Test
  void clientWithoutSniGetsTheDefaultCertificate() throws Exception {
    EventLoopGroup group = group();
    KeyMaterial other = KeyMaterial.fromPem(pki.otherCert, pki.otherKey);
    Listener listener =
        listen(group, serverConfig().withServerName("other.test", other), RecordingHandler::new);
    // Connecting to 127.0.0.1 without a server name: no SNI (IP literal), verified by IP SAN.
    TlsConnection connection =
        connect(group, TlsClientConfig.trusting(pki.caTrust()), listener, new RecordingHandler());
    assertThat(subject(connection)).isEqualTo("CN=localhost");
  }

  @Test
  void clientVerifiesTheHostName() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server = new RecordingHandler();
    Listener listener = listen(group, serverConfig(), () -> server);
    RecordingHandler client = new RecordingHandler();
    var future =
        TlsClient.create(clientConfig().withServerName("wrong.test"))
            .connect(group, listener.localAddress(), SocketOptions.defaults(), client);

    assertThatThrownBy(() -> await(future))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TlsHandshakeException.class)
        .hasMessageContaining("wrong.test");
    assertThat(client.tlsActive()).isNotDone();
    assertThat(await(server.handshakeFailed())).isInstanceOf(CloseReason.TlsFailure.class);

    // The same check is off on request (the chain is still verified).
    TlsConnection unchecked =
        connect(
            group,
            clientConfig().withServerName("wrong.test").withHostnameVerification(false),
            listener,
            new RecordingHandler());
    assertThat(unchecked.isOpen()).isTrue();
  }

  @Test
  void clientRejectsAnUntrustedServer() throws Exception {
    EventLoopGroup group = group();
    Listener listener = listen(group, serverConfig(), RecordingHandler::new);
    var future =
        TlsClient.create(
                TlsClientConfig.trusting(TrustMaterial.fromPem(pki.rogueCaCert))
                    .withServerName("localhost"))
            .connect(
                group, listener.localAddress(), SocketOptions.defaults(), new RecordingHandler());
    assertThatThrownBy(() -> await(future))
        .cause()
        .isInstanceOf(TlsHandshakeException.class)
        .hasMessageContaining(
            clientEngineSays("certification path", "unable to get local issuer certificate"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void mutualTlsPresentsTheClientCertificate(String protocol) throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server = new RecordingHandler();
    Listener listener =
        listen(
            group,
            serverConfig()
                .withProtocols(protocol)
                .withClientAuth(
                    ClientAuth.REQUIRED,
                    TrustMaterial.fromPkcs12(pki.caTrustP12, TestPki.PASSWORD)),
            () -> server);
    connect(
        group,
        clientConfig().withClientKey(KeyMaterial.fromPem(pki.clientCert, pki.clientKey)),
        listener,
        new RecordingHandler());
    assertThat(subject(await(server.tlsActive()))).isEqualTo("CN=test-client");
  }

  @Test
  void requiredClientCertificateMissing() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server = new RecordingHandler();
    Listener listener =
        listen(
            group,
            serverConfig()
                .withProtocols("TLSv1.2")
                .withClientAuth(ClientAuth.REQUIRED, pki.caTrust()),
            () -> server);
    var future =
        TlsClient.create(clientConfig())
            .connect(
                group, listener.localAddress(), SocketOptions.defaults(), new RecordingHandler());
    assertThatThrownBy(() -> await(future)).cause().isInstanceOf(TlsHandshakeException.class);
    assertThat(((CloseReason.TlsFailure) await(server.handshakeFailed())).detail())
        .contains(
            engineSays("Empty client certificate chain", "peer did not return a certificate"));
  }

  @Test
  void optionalClientCertificate() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server = new RecordingHandler();
    Listener listener =
        listen(
            group, serverConfig().withClientAuth(ClientAuth.OPTIONAL, pki.caTrust()), () -> server);
    connect(group, clientConfig(), listener, new RecordingHandler());
    assertThatThrownBy(() -> await(server.tlsActive()).session().getPeerCertificates())
        .isInstanceOf(javax.net.ssl.SSLPeerUnverifiedException.class);
  }

  @Test
  void tls13HalfCloseKeepsTheOtherDirectionOpen() throws Exception {
    EventLoopGroup group = group();
    // The server answers only after the client's end of input, then ends its own output.
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onEndOfInput(Connection connection) {
            endOfInput().complete(null);
            connection.write(ascii("response after your close_notify"));
            connection.shutdownOutput();
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols("TLSv1.3"), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);

    await(connection.write(ascii("request")));
    connection.shutdownOutput();
    await(server.endOfInput());
    await(client.endOfInput());
    assertThat(client.text()).isEqualTo("response after your close_notify");
    assertThat(server.text()).isEqualTo("request");
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(await(server.closed())).isEqualTo(CloseReason.NORMAL);
  }

  @Test
  void tls12HasNoHalfCloseWritesAfterThePeersCloseNotifyFail() throws Exception {
    EventLoopGroup group = group();
    CompletableFuture<Throwable> lateWrite = new CompletableFuture<>();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onEndOfInput(Connection connection) {
            endOfInput().complete(null);
            connection.write(ascii("too late"), lateWrite::complete);
            connection.shutdownOutput();
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols("TLSv1.2"), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);

    connection.shutdownOutput();
    await(server.endOfInput());
    assertThat(await(lateWrite)).isInstanceOf(ConnectionClosedException.class);
    await(client.endOfInput());
    assertThat(client.received()).isZero();
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(await(server.closed())).isEqualTo(CloseReason.NORMAL);
  }

  @Test
  void writesAfterCloseOrShutdownFailClearly() throws Exception {
    EventLoopGroup group = group();
    // The server keeps its side open after the client's close_notify (TLS 1.3 half-close).
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onEndOfInput(Connection connection) {
            endOfInput().complete(null);
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols("TLSv1.3"), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);

    connection.shutdownOutput();
    await(server.endOfInput());
    assertThat(connection.isOpen()).isTrue();
    assertThatThrownBy(() -> await(connection.write(ascii("x"))))
        .cause()
        .isInstanceOf(ConnectionClosedException.class)
        .hasMessageContaining("shut down");
    connection.close();
    await(client.closed());
    assertThatThrownBy(() -> await(connection.write(ascii("x"))))
        .cause()
        .isInstanceOf(ConnectionClosedException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void writabilityFollowsTheWatermarksAndWritesCompleteInOrder() throws Exception {
    EventLoopGroup group =
        group(TransportConfig.defaults().withEventLoops(2).withWatermarks(64 * 1024, 256 * 1024));
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onActive(Connection connection) {
            super.onActive(connection);
            connection.pauseReading();
          }
        };
    Listener listener = listen(group, serverConfig(), () -> server);
    // What isWritable() said inside each change's callback: afterwards, on the test's thread, the
    // loop may already have flushed below the low watermark.
    CompletableFuture<Boolean> notWritable = new CompletableFuture<>();
    CompletableFuture<Boolean> writableAgain = new CompletableFuture<>();
    RecordingHandler client =
        new RecordingHandler() {
          @Override
          public void onWritabilityChanged(Connection connection, boolean writable) {
            (writable ? writableAgain : notWritable).complete(connection.isWritable());
          }
        };
    TlsConnection connection = connect(group, clientConfig(), listener, client);
    int writes = 64;
    int size = 256 * 1024;
    var received = server.expect((long) writes * size);
    StringBuilder order = new StringBuilder();
    CompletableFuture<Void> last = null;
    for (int i = 0; i < writes; i++) {
      int index = i;
      last =
          connection
              .write(new PayloadPattern(i).buffer(size, i % 2 == 0))
              .thenRun(() -> order.append(index).append(','));
    }
    assertThat(await(notWritable)).isFalse();
    await(server.tlsActive()).resumeReading();
    await(received);
    await(last);
    assertThat(await(writableAgain)).isTrue();
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < writes; i++) {
      expected.append(i).append(',');
    }
    assertThat(order.toString()).isEqualTo(expected.toString());
  }

  @Test
  void transientWritesCopyOnlyWhatCouldNotBeSent() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onActive(Connection connection) {
            super.onActive(connection);
            connection.pauseReading();
          }
        };
    Listener listener = listen(group, serverConfig(), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);
    ByteBuffer payload = new PayloadPattern(9).buffer(8 << 20, false);
    var received = server.expect(payload.remaining());
    CompletableFuture<Void> written = new CompletableFuture<>();
    byte[] scratch = new byte[payload.remaining()];
    connection
        .loop()
        .execute(
            () -> {
              ByteBuffer transientSource = ByteBuffer.wrap(scratch);
              transientSource.put(payload.duplicate()).flip();
              connection.writeTransient(transientSource, e -> written.complete(null));
              // The source is the caller's again: scribbling on it must not change what is sent.
              java.util.Arrays.fill(scratch, (byte) 0);
            });
    await(server.tlsActive()).resumeReading();
    assertThat(await(received)).isEqualTo(Sha256.hex(payload));
    await(written);
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }
}
