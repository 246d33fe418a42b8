package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Transport;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection with no bytes moving for the idle timeout closes with {@link
 * CloseReason.IdleTimeout}; one that keeps moving bytes stays open however long it lives.
 */
class IdleTimeoutTest {
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Transport.class)
  void onlyTheIdleConnectionTimesOut(Transport transport) throws Exception {
    Accepted<Echo> servers = new Accepted<>(Echo::new);
    SocketOptions serverOptions = SocketOptions.defaults().withIdleTimeout(TIMEOUT);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            transport.bindAddress(dir),
            serverOptions,
            servers)) {
      RecordingHandler idleClient = new RecordingHandler();
      loopback.connect(idleClient);
      Echo idle = servers.next();
      PingPong busyClient = new PingPong();
      loopback.connect(busyClient);
      Echo busy = servers.next();

      assertThat(Await.result(idle.closed(), "the idle connection's timeout"))
          .isEqualTo(new CloseReason.IdleTimeout(TIMEOUT.toMillis()));
      assertThat(Await.result(idleClient.closed(), "the idle client's close"))
          .isEqualTo(CloseReason.NORMAL);

      // Three more timeouts' worth of ping-pong: the busy connection must survive all of them.
      long roundTripsBefore = busyClient.roundTrips.get();
      Thread.sleep(3 * TIMEOUT.toMillis());
      assertThat(busyClient.roundTrips.get()).isGreaterThan(roundTripsBefore);
      assertThat(busy.closed()).as("the busy connection's close").isNotDone();

      busyClient.stop = true;
      assertThat(Await.result(busy.closed(), "the busy connection's timeout once it stops"))
          .isEqualTo(new CloseReason.IdleTimeout(TIMEOUT.toMillis()));
    }
  }

  /** Echoes everything back. */
  private static final class Echo extends RecordingHandler {
    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      connection.write(chunk.buffer(), error -> chunk.release());
    }
  }

  /** Sends one byte per echo, until stopped. */
  private static final class PingPong extends RecordingHandler {
    final AtomicLong roundTrips = new AtomicLong();
    volatile boolean stop;

    @Override
    public void onActive(Connection connection) {
      super.onActive(connection);
      connection.write(ByteBuffer.wrap(new byte[] {1}));
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      chunk.release();
      roundTrips.incrementAndGet();
      if (!stop) {
        connection.write(ByteBuffer.wrap(new byte[] {1}));
      }
    }
  }
}
