package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Huge and zero timeouts: rejected with a clear message, or honoured, never an overflow. */
class TimeoutLimitsTest {

  @Test
  void aTimeoutBeyondTheLimitIsRejectedWithItsName() {
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    assertThatThrownBy(() -> SocketOptions.defaults().withIdleTimeout(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idleTimeout");
    assertThatThrownBy(() -> SocketOptions.defaults().withConnectTimeout(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeout");
  }

  @Test
  void theLongestAllowedTimeoutsWorkEndToEnd() throws Exception {
    Duration longest = Timeouts.MAX;
    SocketOptions options =
        SocketOptions.defaults().withIdleTimeout(longest).withConnectTimeout(longest);
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            options,
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(options, client);
      connection.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
      RecordingHandler server = servers.next();
      Await.until(() -> server.receivedCount() == 3, () -> "three bytes");
      assertThat(connection.isOpen()).isTrue();
      assertThat(server.connection().isOpen()).isTrue();
    }
  }

  @Test
  void zeroMeansNoTimeout() throws Exception {
    SocketOptions none =
        SocketOptions.defaults().withIdleTimeout(Timeouts.NONE).withConnectTimeout(Timeouts.NONE);
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(1),
            new InetSocketAddress("127.0.0.1", 0),
            none,
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(none, client);
      Thread.sleep(100);
      assertThat(connection.isOpen()).isTrue();
    }
  }

  @Test
  void aScheduledTaskBeyondTheLimitIsRejected() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      EventLoop loop = group.loops().getFirst();
      java.util.concurrent.CompletableFuture<Throwable> thrown =
          new java.util.concurrent.CompletableFuture<>();
      loop.execute(
          () -> {
            try {
              loop.schedule(Duration.ofSeconds(Long.MAX_VALUE), () -> {});
              thrown.complete(null);
            } catch (Throwable t) {
              thrown.complete(t);
            }
          });
      assertThat(Await.result(thrown, "schedule")).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
