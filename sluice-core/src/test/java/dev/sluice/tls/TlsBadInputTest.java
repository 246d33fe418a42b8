package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input closes that connection only, with a reason the application can see, and disturbs
 * nothing else: every case runs next to an established "bystander" connection on the same server,
 * which must still echo afterwards.
 */
class TlsBadInputTest extends TlsTestBase {
  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(2);

  private final BlockingQueue<RecordingHandler> accepted = new LinkedBlockingQueue<>();
  private EventLoopGroup group;
  private Listener listener;
  private TlsConnection bystander;
  private RecordingHandler bystanderClient;
  private RecordingHandler bystanderServer;
  private int pings;

  /** Echoes what it reads. */
  static final class Echo extends RecordingHandler {
    @Override
    protected void onBytes(Connection connection, byte[] bytes) {
      super.onBytes(connection, bytes);
      connection.write(ByteBuffer.wrap(bytes));
    }
  }

  private void start(TlsServerConfig server, TlsClientConfig bystanderConfig) throws Exception {
    group = group();
    listener =
        listen(
            group,
            server.withHandshakeTimeout(HANDSHAKE_TIMEOUT),
            () -> {
              Echo handler = new Echo();
              accepted.add(handler);
              return handler;
            });
    bystanderClient = new RecordingHandler();
    bystander = connect(group, bystanderConfig, listener, bystanderClient);
    bystanderServer = nextAccepted();
    assertBystanderUndisturbed();
  }

  private void start(TlsServerConfig server) throws Exception {
    start(server, clientConfig());
  }

  private RecordingHandler nextAccepted() throws InterruptedException {
    RecordingHandler handler = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(handler).as("a connection was accepted").isNotNull();
    return handler;
  }

  private void assertBystanderUndisturbed() throws Exception {
    pings++;
    var echoed = bystanderClient.expect(pings * 4L);
    await(bystander.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII))));
    await(echoed);
    assertThat(bystander.isOpen()).isTrue();
    assertThat(bystanderServer.closed()).isNotDone();
    assertThat(bystanderClient.closed()).isNotDone();
  }

  private TlsFailure expectHandshakeFailure(RecordingHandler server, Kind kind) throws Exception {
    CloseReason reason = await(server.handshakeFailed());
    assertThat(reason).isInstanceOf(TlsFailure.class);
    TlsFailure failure = (TlsFailure) reason;
    assertThat(failure.kind()).isEqualTo(kind);
    assertThat(server.tlsActive()).as("a failed handshake never reaches onActive").isNotDone();
    assertThat(server.closed()).as("nor onClose").isNotDone();
    return failure;
  }

  private TlsFailure expectClosed(RecordingHandler server, Kind kind) throws Exception {
    CloseReason reason = await(server.closed());
    assertThat(reason).isInstanceOf(TlsFailure.class);
    assertThat(((TlsFailure) reason).kind()).isEqualTo(kind);
    return (TlsFailure) reason;
  }

  private Socket rawSocket() throws Exception {
    InetSocketAddress address = (InetSocketAddress) listener.localAddress();
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
    return socket;
  }

  /** Reads until the server closes the socket; a reset also counts. */
  private static void awaitServerClose(Socket socket) {
    try {
      while (socket.getInputStream().read(new byte[4096]) >= 0) {
        // drain
      }
    } catch (java.net.SocketException reset) {
      // the server closed with unread input: a reset
    } catch (java.io.IOException e) {
      throw new AssertionError("the server did not close the connection", e);
    }
  }

  private RawTlsPeer rawPeer(String protocol) throws Exception {
    return new RawTlsPeer(listener.localAddress(), pki.caTrust(), protocol);
  }

  /**
   * Input whose first header is not a TLS record's but asks for more: an unknown content type with
   * a valid version whose "body" is a plausible header of a 16 KiB record, and an SSLv2-style
   * hello. Refused at once, not after waiting for bytes that would never make a record.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "1903030005" + "1603034000",
        "801c01030300030000001000002f" + "000102030405060708090a0b0c0d0e0f"
      })
  void headerThatIsNotARecordButAsksForMore(String hex) throws Exception {
    start(serverConfig());
    try (Socket socket = rawSocket()) {
      socket.getOutputStream().write(java.util.HexFormat.of().parseHex(hex));
      expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
      awaitServerClose(socket);
    }
    assertBystanderUndisturbed();
  }

  @Test
  void garbageInsteadOfAClientHello() throws Exception {
    start(serverConfig());
    byte[] garbage = new byte[512];
    new Random(42).nextBytes(garbage);
    garbage[0] = 0x42; // not a TLS content type, nor an SSLv2 header
    try (Socket socket = rawSocket()) {
      socket.getOutputStream().write(garbage);
      TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
      assertThat(failure.cause()).isNotNull();
      awaitServerClose(socket);
    }
    assertBystanderUndisturbed();
  }

  @Test
  void plaintextHttpToATlsPort() throws Exception {
    start(serverConfig());
    try (Socket socket = rawSocket()) {
      socket
          .getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      RecordingHandler server = nextAccepted();
      TlsFailure failure = expectHandshakeFailure(server, Kind.HANDSHAKE_FAILED);
      assertThat(failure.detail()).isEqualTo("a plaintext HTTP request on a TLS port");
      assertThat(server.accessorFailures).as("session(), applicationProtocol()...").isEmpty();
      String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(reply).startsWith("HTTP/1.1 400 Bad Request\r\n").contains("use https://");
    }
    assertBystanderUndisturbed();
  }

  @Test
  void aResetBeforeTheFirstByteIsAFailedHandshakeWithTheReset() throws Exception {
    start(serverConfig());
    try (Socket socket = rawSocket()) {
      socket.setSoLinger(true, 0); // close() sends RST: a load balancer's TCP check, a scanner
    }
    RecordingHandler server = nextAccepted();
    assertThat(await(server.handshakeFailed())).isInstanceOf(CloseReason.PeerReset.class);
    assertThat(server.accessorFailures).as("session(), applicationProtocol()...").isEmpty();
    assertThat(server.tlsActive()).isNotDone();
    assertThat(server.closed()).isNotDone();
    assertBystanderUndisturbed();
  }

  @Test
  void anEndOfInputBeforeTheFirstByteIsAFailedHandshake() throws Exception {
    start(serverConfig());
    try (Socket socket = rawSocket()) {
      socket.shutdownOutput();
      TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
      assertThat(failure.detail()).contains("closed the connection during the TLS handshake");
      awaitServerClose(socket);
    }
    assertBystanderUndisturbed();
  }

  @Test
  void aResetInTheFirstStageOrTheHandshakeIsAFailedHandshakeWithTheReset() throws Exception {
    start(serverConfig());
    try (Socket socket = rawSocket()) {
      // Two letters could begin an HTTP method: the first stage holds them, waiting for more.
      socket.getOutputStream().write("GE".getBytes(StandardCharsets.US_ASCII));
      socket.setSoLinger(true, 0);
    }
    assertThat(await(nextAccepted().handshakeFailed())).isInstanceOf(CloseReason.PeerReset.class);
    try (RawTlsPeer peer = rawPeer("TLSv1.3")) {
      byte[] hello = peer.clientHello();
      peer.send(Arrays.copyOf(hello, hello.length / 2)); // in the TLS handshake itself
      peer.reset();
      assertThat(await(nextAccepted().handshakeFailed())).isInstanceOf(CloseReason.PeerReset.class);
    }
    assertBystanderUndisturbed();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void truncatedHandshakeThenFin(String protocol) throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer(protocol)) {
      byte[] hello = peer.clientHello();
      peer.send(Arrays.copyOf(hello, hello.length / 2));
      peer.shutdownOutput();
      TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
      assertThat(failure.detail()).contains("during the TLS handshake");
      peer.readUntilClosed();
    }
    assertBystanderUndisturbed();
  }

  @Test
  void truncatedHandshakeThenSilenceTimesOut() throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer("TLSv1.3")) {
      byte[] hello = peer.clientHello();
      peer.send(Arrays.copyOf(hello, 40));
      TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_TIMEOUT);
      assertThat(failure.detail()).contains(HANDSHAKE_TIMEOUT.toMillis() + " ms");
      peer.readUntilClosed();
    }
    assertBystanderUndisturbed();
  }

  @ParameterizedTest
  @ValueSource(strings = {"unknown.test", "127.0.0.1"})
  void unknownServerNameWithNoDefault(String requested) throws Exception {
    start(TlsServerConfig.bySniOnly("localhost", pki.serverKeyMaterial()));
    TlsClient client =
        TlsClient.create(
            TlsClientConfig.trusting(pki.caTrust())
                .withServerName(requested)
                .withHostnameVerification(false));
    RecordingHandler handler = new RecordingHandler();
    var future = client.connect(group, listener.localAddress(), SocketOptions.defaults(), handler);

    TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
    assertThatThrownBy(() -> await(future))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TlsHandshakeException.class);
    assertThat(handler.tlsActive()).isNotDone();
    if (requested.equals("unknown.test")) {
      assertThat(failure.detail()).containsIgnoringCase("unrecognized");
    }
    assertBystanderUndisturbed();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void expiredClientCertificate(String protocol) throws Exception {
    KeyMaterial expired =
        KeyMaterial.of(
            KeyMaterial.fromPkcs12(pki.expiredClientP12, TestPki.PASSWORD).key(),
            KeyMaterial.certificatesFromPem(pki.expiredClientCert));
    TlsFailure failure = rejectedClientCertificate(protocol, expired);
    assertThat(causeChain(failure)).containsIgnoringCase("expired");
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void untrustedClientCertificate(String protocol) throws Exception {
    TlsFailure failure =
        rejectedClientCertificate(
            protocol, KeyMaterial.fromPem(pki.rogueClientCert, pki.rogueClientKey));
    assertThat(causeChain(failure))
        .containsIgnoringCase(
            engineSays("certification path", "unable to get local issuer certificate"));
  }

  /**
   * A client certificate that OpenSSL verifies but Java cannot parse (a critical subjectAltName
   * with a malformed URI): a handshake failure on either engine, never an unchecked exception.
   */
  @Test
  void clientCertificateJavaCannotParse() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("unparseable");
    java.nio.file.Path key = dir.resolve("client.key");
    java.nio.file.Path csr = dir.resolve("client.csr");
    java.nio.file.Path cert = dir.resolve("client.pem");
    java.nio.file.Path ext =
        pki.write("unparseable.ext", "subjectAltName=critical,URI:ht tp://x y\n");
    openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        csr.toString(),
        "-subj",
        "/CN=unparseable");
    openssl(
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        pki.caCert.toString(),
        "-CAkey",
        pki.dir.resolve("ca.key").toString(),
        "-set_serial",
        "77",
        "-days",
        "2",
        "-out",
        cert.toString(),
        "-extfile",
        ext.toString());
    start(serverConfig().withClientAuth(ClientAuth.OPTIONAL, pki.caTrust()));
    InetSocketAddress address = (InetSocketAddress) listener.localAddress();
    Process client =
        new ProcessBuilder(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + address.getPort(),
                "-servername",
                "localhost",
                "-cert",
                cert.toString(),
                "-key",
                key.toString())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    client.getOutputStream().close();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                client.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
              } catch (java.io.IOException gone) {
                // the process ended
              }
            });
    try {
      expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
    } finally {
      client.destroy();
    }
    assertBystanderUndisturbed();
  }

  private static void openssl(String... args) throws Exception {
    java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("openssl"));
    command.addAll(java.util.List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && p.exitValue() == 0)
        .as(command + ": " + out)
        .isTrue();
  }

  private TlsFailure rejectedClientCertificate(String protocol, KeyMaterial clientKey)
      throws Exception {
    start(
        serverConfig().withProtocols(protocol).withClientAuth(ClientAuth.REQUIRED, pki.caTrust()),
        clientConfig().withClientKey(KeyMaterial.fromPem(pki.clientCert, pki.clientKey)));
    RecordingHandler handler = new RecordingHandler();
    var future =
        TlsClient.create(clientConfig().withClientKey(clientKey))
            .connect(group, listener.localAddress(), SocketOptions.defaults(), handler);

    TlsFailure failure = expectHandshakeFailure(nextAccepted(), Kind.HANDSHAKE_FAILED);
    // TLS 1.2 clients learn it in the handshake; TLS 1.3 clients finish first and then get the
    // server's alert: either way the client connection ends with a TLS failure.
    try {
      await(future);
      assertThat(await(handler.closed())).isInstanceOf(TlsFailure.class);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(TlsHandshakeException.class);
    }
    assertBystanderUndisturbed();
    return failure;
  }

  private static String causeChain(TlsFailure failure) {
    StringBuilder text = new StringBuilder(failure.detail());
    for (Throwable t = failure.cause(); t != null; t = t.getCause()) {
      text.append(" / ").append(t);
    }
    return text.toString();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void peerStopsInTheMiddleOfARecord(String protocol) throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer(protocol)) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      await(server.tlsActive());
      byte[] record = peer.record(new byte[3000]);
      peer.send(Arrays.copyOf(record, record.length / 2));
      peer.shutdownOutput();
      TlsFailure failure = expectClosed(server, Kind.TRUNCATED);
      assertThat(failure.detail()).contains("in the middle of a TLS record");
      assertThat(server.received()).isZero();
    }
    assertBystanderUndisturbed();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void closeWithoutCloseNotifyIsATruncation(String protocol) throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer(protocol)) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      var hello = server.expect(5);
      peer.send(peer.record("hello".getBytes(StandardCharsets.US_ASCII)));
      await(hello);
      peer.shutdownOutput();
      TlsFailure failure = expectClosed(server, Kind.TRUNCATED);
      assertThat(failure.detail()).contains("without close_notify");
      assertThat(server.endOfInput()).as("a truncation is not an end of input").isNotDone();
      assertThat(server.text()).isEqualTo("hello");
    }
    assertBystanderUndisturbed();
  }

  @Test
  void recordHeaderAboveTheMaximumClosesAtOnce() throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer("TLSv1.3")) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      await(server.tlsActive());
      byte[] header = {0x17, 0x03, 0x03, (byte) 0xff, (byte) 0xff};
      byte[] start = Arrays.copyOf(header, 105);
      peer.send(start); // 65535 B announced, 100 sent: waiting for the rest would hang the test
      TlsFailure failure = expectClosed(server, Kind.PROTOCOL_ERROR);
      assertThat(failure.detail()).containsIgnoringCase("too big");
      peer.readUntilClosed();
    }
    assertBystanderUndisturbed();
  }

  @Test
  void recordLargerThanTheProtocolAllows() throws Exception {
    start(serverConfig());
    try (RawTlsPeer peer = rawPeer("TLSv1.2")) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      await(server.tlsActive());
      int length = (1 << 14) + 2048 + 1; // one byte over TLS 1.2's ciphertext limit
      byte[] record = new byte[5 + length];
      new Random(7).nextBytes(record);
      record[0] = 0x17;
      record[1] = 0x03;
      record[2] = 0x03;
      record[3] = (byte) (length >> 8);
      record[4] = (byte) length;
      peer.send(record);
      expectClosed(server, Kind.PROTOCOL_ERROR);
      peer.readUntilClosed();
    }
    assertBystanderUndisturbed();
  }

  @Test
  void handlerExceptionClosesThatConnectionWithTheError() throws Exception {
    start(serverConfig());
    IllegalStateException boom = new IllegalStateException("handler bug");
    Listener throwing =
        listen(
            group,
            serverConfig(),
            () ->
                new RecordingHandler() {
                  @Override
                  protected void onBytes(Connection connection, byte[] bytes) {
                    accepted.add(this);
                    throw boom;
                  }
                });
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), throwing, client);
    await(connection.write(ByteBuffer.wrap(new byte[] {1})));

    RecordingHandler server = nextAccepted();
    assertThat(await(server.closed())).isEqualTo(new CloseReason.Error(boom));
    await(client.endOfInput()); // close_notify was sent: an orderly end, not a truncation
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertBystanderUndisturbed();
  }
}
