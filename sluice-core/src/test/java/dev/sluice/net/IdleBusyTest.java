package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Idle means no bytes moved and nothing pending: a connection whose writes the peer is not
 * draining, or whose reading is paused for backpressure, is busy, and its idle timeout must not cut
 * it. The write stamp, by which a proxy tells a stalled peer from a slow one, moves only when the
 * peer takes bytes.
 */
class IdleBusyTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  @Test
  void aConnectionWithWritesThePeerIsNotDrainingIsNotIdle() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection =
          loopback.connect(SocketOptions.defaults().withIdleTimeout(TIMEOUT), client);
      RecordingHandler server = servers.next();
      server.connection().pauseReading();
      connection.write(ByteBuffer.allocate(16 << 20));
      Await.until(() -> !connection.isWritable(), () -> "the client to fill the socket");
      Thread.sleep(4 * TIMEOUT.toMillis());
      assertThat(client.closed()).as("the backpressured client's close").isNotDone();

      server.connection().resumeReading();
      Await.until(
          () -> server.receivedCount() == 16 << 20,
          () -> server.receivedCount() + " bytes of 16 MiB");
      assertThat(Await.result(client.closed(), "the idle timeout once drained"))
          .isEqualTo(new CloseReason.IdleTimeout(TIMEOUT.toMillis()));
    }
  }

  @Test
  void aConnectionPausedForBackpressureIsNotIdle() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    SocketOptions idle = SocketOptions.defaults().withIdleTimeout(TIMEOUT);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            idle,
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      RecordingHandler server = servers.next();
      server.connection().pauseReading(); // as a proxy pauses a leg whose peer is slow
      connection.write(ByteBuffer.allocate(1 << 20));
      Thread.sleep(4 * TIMEOUT.toMillis());
      assertThat(server.closed()).as("the paused server side's close").isNotDone();
      server.connection().resumeReading();
      Await.until(
          () -> server.receivedCount() == 1 << 20,
          () -> server.receivedCount() + " bytes of 1 MiB");
      assertThat(Await.result(server.closed(), "the idle timeout once resumed and quiet"))
          .isEqualTo(new CloseReason.IdleTimeout(TIMEOUT.toMillis()));
    }
  }

  @Test
  void theWriteStampMovesOnlyWhenThePeerTakesBytes() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      RecordingHandler server = servers.next();
      server.connection().pauseReading();
      connection.write(ByteBuffer.allocate(16 << 20));
      Await.until(() -> !connection.isWritable(), () -> "the client to fill the socket");
      long stalledAt = onLoop(connection, connection::lastWriteNanos);
      Await.until( // a write of no bytes, a pause and a resume are not progress
          () -> {
            connection.pauseReading();
            connection.resumeReading();
            return onLoop(connection, () -> connection.loop().nanoTime()) - stalledAt
                > TIMEOUT.toNanos();
          },
          () -> "the loop's clock to move on");
      assertThat(onLoop(connection, connection::lastWriteNanos)).isEqualTo(stalledAt);
      assertThat(onLoop(connection, connection::pendingWriteBytes)).isPositive();

      server.connection().resumeReading(); // the peer takes some: the stamp moves
      Await.until(
          () -> onLoop(connection, connection::lastWriteNanos) > stalledAt,
          () -> "a write after the peer read");
      Await.until(
          () -> server.receivedCount() == 16 << 20,
          () -> server.receivedCount() + " bytes of 16 MiB");
    }
  }

  private static long onLoop(Connection c, java.util.function.LongSupplier read) {
    java.util.concurrent.CompletableFuture<Long> value =
        new java.util.concurrent.CompletableFuture<>();
    c.loop().submit(() -> value.complete(read.getAsLong()), () -> value.cancel(false));
    return Await.result(value, "a read on the loop");
  }
}
