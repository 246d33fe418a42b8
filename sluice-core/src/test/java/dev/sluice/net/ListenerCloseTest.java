package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        // A connect returns once the client has its SYN-ACK; the kernel may queue the server's
        // side a moment later.
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        Await.until(
            () -> acceptQueueLength(port) == QUEUED,
            () -> acceptQueueLength(port) + " of " + QUEUED + " connections queued");
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

  /**
   * Linux: the rx_queue of the port's LISTEN line in /proc/net/tcp (or tcp6: NIO's sockets are
   * dual-stack) is its accept queue.
   */
  private static int acceptQueueLength(int port) {
    String local = String.format(":%04X", port);
    try {
      for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] fields = line.trim().split("\\s+");
          if (fields.length > 4 && fields[3].equals("0A") && fields[1].endsWith(local)) {
            return Integer.parseInt(fields[4].substring(fields[4].indexOf(':') + 1), 16);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return -1;
  }

  /**
   * On epoll a listener has a socket per loop, each registered by its own loop. A group shutting
   * down closes the whole listener from the first loop that stops; a loop that had not yet
   * registered its socket must then close it, not skip it (the socket kept the port bound after the
   * group closed: seen as a flaky leak of "listening socket fd N").
   */
  @Test
  void aListenerSocketNotYetRegisteredWhenTheGroupStopsIsClosed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    int port;
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      assumeTrue(group.transport() == Transport.EPOLL, "a socket per loop is epoll's");
      group.loops().get(1).execute(() -> awaitQuietly(release)); // its registration waits
      Listener listener =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              RecordingHandler::new);
      port = ((InetSocketAddress) listener.localAddress()).getPort();
      var stopped = group.closeAsync();
      // The first loop stops, closing the listener, while the second has not registered.
      Await.result(group.loops().get(0).terminationFuture(), "the first loop stopped");
      release.countDown();
      Await.result(stopped, "the group stopped");
    } finally {
      release.countDown();
    }
    assertThat(portIsFree(port)).as("port %d bound by nobody", port).isTrue();
  }

  /** Whether a socket without SO_REUSEPORT can bind {@code port}: nothing holds it. */
  private static boolean portIsFree(int port) throws IOException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (BindException held) {
      return false;
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
