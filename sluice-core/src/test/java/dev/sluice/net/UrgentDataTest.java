package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.testing.Await;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * TCP urgent data (a telnet interrupt, a client's {@code sendUrgentData}) in the middle of a
 * stream. The kernel ends a read short at the urgent mark though bytes wait behind it, and a splice
 * stops there for good; neither may strand or drop the bytes after it. Without SO_OOBINLINE the
 * urgent byte itself is not part of the stream, on either transport.
 */
class UrgentDataTest {
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  /** Sends "abc", one urgent byte, "def", and (when {@code end}) its end of output. */
  private static void sendAroundAnUrgentByte(Socket client, boolean end) throws Exception {
    OutputStream out = client.getOutputStream();
    out.write("abc".getBytes(StandardCharsets.US_ASCII));
    client.sendUrgentData('!');
    out.write("def".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    if (end) {
      client.shutdownOutput();
    }
  }

  @Test
  void theBytesBehindAnUrgentByteAreReadOnEveryTransport() throws Exception {
    CompletableFuture<Connection> accepted = new CompletableFuture<>();
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
        Listener echo =
            group.listen(
                LOOPBACK,
                SocketOptions.defaults(),
                () ->
                    new ConnectionHandler() {
                      @Override
                      public void onActive(Connection connection) {
                        connection.pauseReading(); // all of it arrives before the first read
                        accepted.complete(connection);
                      }

                      @Override
                      public void onRead(Connection connection, BorrowedBytes bytes) {
                        connection.writeTransient(bytes.buffer(), null);
                      }
                    });
        Socket client = new Socket()) {
      client.connect(echo.localAddress());
      client.setSoTimeout(10_000);
      Connection server = Await.result(accepted, "the accepted connection");
      sendAroundAnUrgentByte(client, false);

      server.loop().execute(server::resumeReading);

      byte[] back = client.getInputStream().readNBytes(6);
      assertThat(new String(back, StandardCharsets.US_ASCII)).isEqualTo("abcdef");
    }
  }

  @Test
  void aSpliceStoppedAtTheUrgentMarkLosesNoByteBehindIt() throws Exception {
    assumeTrue(Transport.fromSystemProperty().resolve() == Transport.EPOLL, "splice is epoll's");
    CompletableFuture<Void> sent = new CompletableFuture<>();
    try (SpliceTest.Sink sink = new SpliceTest.Sink(1, 1024, 0, 0);
        EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
        Listener relay =
            group.listen(
                LOOPBACK,
                SocketOptions.defaults(),
                () ->
                    new SpliceTest.Relay(
                        sink.address(),
                        new SpliceTest.Settings(0, sent, SocketOptions.defaults())));
        Socket client = new Socket()) {
      client.connect(relay.localAddress());
      sendAroundAnUrgentByte(client, true);
      sent.complete(null); // the relay reads from now on, with everything queued

      SpliceTest.Received received =
          Await.result(sink.received.getFirst(), "the sink's end of input");
      CRC32 crc = new CRC32();
      crc.update("abcdef".getBytes(StandardCharsets.US_ASCII));
      assertThat(received).isEqualTo(new SpliceTest.Received(6, crc.getValue()));
    }
  }
}
