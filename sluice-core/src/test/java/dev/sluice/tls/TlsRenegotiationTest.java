package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * A TLS 1.2 client that starts a second handshake on an established connection (client-initiated
 * renegotiation: a full handshake on the event loop, outside every rate limit) is refused and
 * closed with that reason, whatever the JVM's renegotiation properties say; its neighbours go on,
 * and a TLS 1.3 key update, the one handshake message that may follow the first, still works.
 */
class TlsRenegotiationTest extends TlsTestBase {
  private final BlockingQueue<RecordingHandler> accepted = new LinkedBlockingQueue<>();
  private Listener listener;

  private void start() throws Exception {
    EventLoopGroup group = group();
    listener =
        listen(
            group,
            serverConfig(),
            () -> {
              RecordingHandler handler = new TlsBadInputTest.Echo();
              accepted.add(handler);
              return handler;
            });
  }

  private RecordingHandler nextAccepted() throws InterruptedException {
    RecordingHandler handler = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(handler).as("a connection was accepted").isNotNull();
    return handler;
  }

  private SSLSocket jdkClient(String protocol) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, pki.caTrust().trustManagers(), null);
    return jdkClient(context, protocol);
  }

  private SSLSocket jdkClient(SSLContext context, String protocol) throws Exception {
    InetSocketAddress address = (InetSocketAddress) listener.localAddress();
    SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("localhost", address.getPort());
    socket.setEnabledProtocols(new String[] {protocol});
    socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
    socket.startHandshake();
    return socket;
  }

  /** Whether the server echoes {@code text} on {@code socket}. */
  private static boolean echoes(SSLSocket socket, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return new String(socket.getInputStream().readNBytes(bytes.length), StandardCharsets.US_ASCII)
        .equals(text);
  }

  /** Reads until the end of the stream; true if it ended (by close_notify, FIN or an error). */
  private static boolean endsWithoutData(InputStream in) {
    try {
      return in.read() < 0;
    } catch (IOException closed) {
      return true;
    }
  }

  private static void assertRefused(CloseReason reason) {
    assertThat(reason).isInstanceOf(TlsFailure.class);
    TlsFailure failure = (TlsFailure) reason;
    assertThat(failure.kind()).isEqualTo(Kind.RENEGOTIATION_REFUSED);
    assertThat(failure.detail()).isEqualTo("client-initiated renegotiation refused");
  }

  @Test
  void aTls12ClientThatRenegotiatesIsRefusedAndItsNeighbourGoesOn() throws Exception {
    start();
    try (SSLSocket bystander = jdkClient("TLSv1.2");
        SSLSocket client = jdkClient("TLSv1.2")) {
      RecordingHandler bystanderServer = nextAccepted();
      RecordingHandler server = nextAccepted();
      assertThat(echoes(bystander, "before")).isTrue();
      assertThat(echoes(client, "before")).isTrue();
      try {
        client.startHandshake(); // a second handshake: the JDK renegotiates
        client.getOutputStream().write('x'); // sent after the new ClientHello
        client.getOutputStream().flush();
      } catch (IOException refused) {
        // the server may have closed already
      }
      assertThat(endsWithoutData(client.getInputStream())).as("the client's stream ends").isTrue();
      assertRefused(await(server.closed()));
      assertThat(server.text()).isEqualTo("before");
      assertThat(echoes(bystander, "after")).as("the neighbour").isTrue();
      assertThat(bystanderServer.closed()).isNotDone();
    }
  }

  /**
   * A handshake record's first byte alone (a renegotiation split across reads) is judged once the
   * record is whole. Judged on that byte, the engine had nothing to refuse, which was taken for an
   * engine that renegotiates: it was shown no renegotiation again in this JVM, and each later one
   * closed without the engine's alert (a bare close, which scanners count as accepted).
   */
  @Test
  void aHandshakeRecordsFirstByteAloneLeavesTheEngineToRefuseTheNextRenegotiation()
      throws Exception {
    start();
    try (RawTlsPeer peer = new RawTlsPeer(listener.localAddress(), pki.caTrust(), "TLSv1.2")) {
      peer.handshake();
      RecordingHandler first = nextAccepted();
      peer.send(new byte[] {0x16});
      peer.shutdownOutput();
      await(first.closed());
    }
    try (SSLSocket client = jdkClient("TLSv1.2")) {
      RecordingHandler server = nextAccepted();
      assertThat(echoes(client, "before")).isTrue();
      try {
        client.startHandshake();
        client.getOutputStream().write('x');
        client.getOutputStream().flush();
      } catch (IOException refused) {
        // the server may have closed already
      }
      CloseReason reason = await(server.closed());
      assertRefused(reason);
      assertThat(((TlsFailure) reason).cause())
          .as("the engine's own refusal, whose alert went out")
          .isNotNull();
    }
  }

  @Test
  void aResumedTls12SessionIsNotARenegotiation() throws Exception {
    start();
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, pki.caTrust().trustManagers(), null);
    byte[] first;
    try (SSLSocket client = jdkClient(context, "TLSv1.2")) {
      assertThat(echoes(client, "first")).isTrue();
      first = client.getSession().getId();
    }
    try (SSLSocket client = jdkClient(context, "TLSv1.2")) {
      // The abbreviated handshake ends with the client's Finished, a handshake record.
      assertThat(client.getSession().getId()).as("the session was resumed").isEqualTo(first);
      assertThat(echoes(client, "resumed")).isTrue();
    }
    nextAccepted();
    RecordingHandler resumed = nextAccepted();
    assertThat(resumed.text()).isEqualTo("resumed");
    assertThat(await(resumed.closed())).isEqualTo(CloseReason.NORMAL);
  }

  @Test
  void aTls13KeyUpdateFromTheClientStillWorks() throws Exception {
    start();
    try (SSLSocket client = jdkClient("TLSv1.3")) {
      RecordingHandler server = nextAccepted();
      assertThat(echoes(client, "before")).isTrue();
      client.startHandshake(); // with TLS 1.3 the JDK sends a KeyUpdate (update requested)
      assertThat(echoes(client, "after the key update")).isTrue();
      client.startHandshake();
      assertThat(echoes(client, "and another")).isTrue();
      assertThat(server.closed()).isNotDone();
    }
  }

  /** openssl s_client to 127.0.0.1:port for localhost, verifying against the test CA. */
  private List<String> sClient(int port, String protocol) {
    return List.of(
        "openssl",
        "s_client",
        "-connect",
        "127.0.0.1:" + port,
        "-servername",
        "localhost",
        "-CAfile",
        pki.caCert.toString(),
        protocol);
  }

  @Test
  void opensslRenegotiationIsRefusedAndItsKeyUpdateIsNot() throws Exception {
    TestPki.requireTool("openssl", "version");
    start();
    int port = ((InetSocketAddress) listener.localAddress()).getPort();
    List<String> tls12 = sClient(port, "-tls1_2");
    try (TlsInteropTest.Peer client = new TlsInteropTest.Peer(tls12)) {
      client.awaitOutput("Verify return code: 0");
      RecordingHandler server = nextAccepted();
      client.send("ping\n");
      client.awaitOutput("ping\n");
      client.send("R\n"); // s_client renegotiates on a line "R"
      assertRefused(await(server.closed()));
      client.awaitExit();
    }
    List<String> tls13 = sClient(port, "-tls1_3");
    try (TlsInteropTest.Peer client = new TlsInteropTest.Peer(tls13)) {
      client.awaitOutput("Verify return code: 0");
      RecordingHandler server = nextAccepted();
      client.send("k\n"); // a key update, and one asked of the server
      client.awaitOutput("KEYUPDATE");
      client.send("after the key update\n");
      client.awaitOutput("after the key update");
      assertThat(server.closed()).isNotDone();
    }
  }
}
