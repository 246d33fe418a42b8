package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** What a listener does with the connections the kernel has queued on it when it closes. */
class ListenerCloseTest {
  private static final int QUEUED = 4;

  @Test
  void connectionsQueuedWhenTheListenerClosesAreServedNotReset() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    List<Socket> clients = new ArrayList<>();
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      Listener listener =
          group.listen(new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), servers);
      // Keep the loop from accepting: the kernel completes the handshakes and queues them.
      CountDownLatch release = new CountDownLatch(1);
      group.loops().getFirst().execute(() -> awaitQuietly(release));
      try {
        for (int i = 0; i < QUEUED; i++) {
          Socket client = new Socket();
          clients.add(client);
          client.connect(listener.localAddress());
          client.getOutputStream().write(("queued " + i).getBytes(StandardCharsets.US_ASCII));
        }
        var unbound = listener.closeAsync(); // behind the blocked task: nothing accepted yet
        release.countDown();
        Await.result(unbound, "the listener unbound");
        assertThat(listener.acceptedCount()).isEqualTo(QUEUED);
        servers.awaitCount(QUEUED);
        for (RecordingHandler server : servers.all()) {
          Await.result(server.expect("queued 0".length()), "the queued client's bytes");
          Connection connection = Await.result(server.active(), "active");
          connection.loop().execute(() -> answerAndClose(connection));
        }
        for (Socket client : clients) {
          InputStream in = client.getInputStream();
          assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII))
              .as("a queued client is answered, then sees FIN, not a reset")
              .isEqualTo("served");
        }
      } finally {
        release.countDown();
        for (Socket client : clients) {
          client.close();
        }
      }
    }
  }

  private static void answerAndClose(Connection connection) {
    connection.write(ByteBuffer.wrap("served".getBytes(StandardCharsets.US_ASCII)));
    connection.shutdownOutput(); // FIN after the answer
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
