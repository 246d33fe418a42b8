package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing to a connection that can no longer send fails at once with a clear error. */
class WriteAfterCloseTest {
  @TempDir Path dir;

  @Test
  void aWriteAfterCloseFailsNamingTheConnectionAndReason() throws Exception {
    try (Loopback loopback = start(new Accepted<>(RecordingHandler::new))) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      connection.close();
      Await.result(client.closed(), "close");

      Throwable failure = Await.failure(connection.write(bytes("late")), "a write after close");
      assertThat(failure)
          .isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("connection " + connection.id())
          .hasMessageContaining(String.valueOf(loopback.address()))
          .hasMessageContaining("is closed (normal)");
      assertThat(((ConnectionClosedException) failure).reason()).isEqualTo(CloseReason.NORMAL);
    }
  }

  @Test
  void aTransientWriteOnTheLoopAfterCloseFailsItsListener() throws Exception {
    try (Loopback loopback = start(new Accepted<>(RecordingHandler::new))) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      connection.close();
      Await.result(client.closed(), "close");

      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      connection.loop().execute(() -> connection.writeTransient(bytes("late"), outcome::complete));
      assertThat(Await.result(outcome, "the listener"))
          .isInstanceOf(ConnectionClosedException.class);
    }
  }

  @Test
  void aWriteAfterShutdownOutputFailsWhileReadingGoesOn() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(() -> new RecordingHandler(false));
    try (Loopback loopback = start(servers)) {
      RecordingHandler client = new RecordingHandler(false);
      Connection connection = loopback.connect(client);
      connection.shutdownOutput();

      Throwable failure = Await.failure(connection.write(bytes("late")), "a write after shutdown");
      assertThat(failure)
          .isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("output already shut down");
      assertThat(((ConnectionClosedException) failure).reason()).isNull();

      RecordingHandler server = servers.next();
      Await.result(server.endOfInput(), "end of input at the server");
      Await.result(server.connection().write(bytes("still reading")), "the server's reply");
      Await.until(() -> client.receivedCount() == 13, () -> "the reply");
      assertThat(new String(client.receivedBytes(), StandardCharsets.US_ASCII))
          .isEqualTo("still reading");
      assertThat(connection.isOpen()).isTrue();
    }
  }

  @Test
  void aWriteAfterItsGroupClosedFailsWithShutdown() throws Exception {
    try (Loopback server = start(new Accepted<>(RecordingHandler::new))) {
      RecordingHandler client = new RecordingHandler();
      Connection connection;
      // The client lives in a group of its own, so its close is the group's shutdown and not a
      // reaction to the server's end closing first.
      try (EventLoopGroup clientGroup =
          new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
        connection =
            Await.result(
                clientGroup.connect(server.address(), SocketOptions.defaults(), client), "connect");
      }
      assertThat(Await.result(client.closed(), "close")).isEqualTo(CloseReason.SHUTDOWN);
      Throwable failure = Await.failure(connection.write(bytes("late")), "a write after shutdown");
      assertThat(failure).isInstanceOf(ConnectionClosedException.class);
      assertThat(((ConnectionClosedException) failure).reason()).isEqualTo(CloseReason.SHUTDOWN);
      assertThat(connection.isOpen()).isFalse();
    }
  }

  /**
   * Every write is answered, even the thousands still queued for the loop when its group shuts
   * down: the loop is held busy while they queue and the shutdown starts, then let go.
   */
  @Test
  void writesStillQueuedWhenTheGroupShutsDownAreAllAnswered() throws Exception {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    try (Loopback loopback = start(new Accepted<>(RecordingHandler::new))) {
      Connection connection = loopback.connect(new RecordingHandler());
      connection.loop().execute(() -> awaitQuietly(release));
      for (int i = 0; i < 10_000; i++) {
        writes.add(connection.write(bytes("x")));
      }
      loopback.group().loops().forEach(EventLoop::shutdown);
      release.countDown();
    }
    for (CompletableFuture<Void> write : writes) {
      try {
        Await.result(write, "a write queued before shutdown");
      } catch (AssertionError failed) {
        assertThat(failed.getCause()).isInstanceOf(IOException.class);
      }
    }
  }

  /**
   * A write the loop cannot perform (here: a buffer only the test thread may touch) fails its
   * future with the cause, and the connection closes with that error; the write is not lost.
   */
  @Test
  void aWriteThatFailsOnTheLoopFailsItsFutureAndClosesWithTheCause() throws Exception {
    try (Loopback loopback = start(new Accepted<>(RecordingHandler::new));
        Arena testThreadOnly = Arena.ofConfined()) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      ByteBuffer unreachable = testThreadOnly.allocate(1024).asByteBuffer();

      Throwable failure =
          Await.failure(connection.write(unreachable), "a write the loop cannot do");

      assertThat(failure).isInstanceOf(WrongThreadException.class);
      assertThat(Await.result(client.closed(), "close"))
          .isInstanceOfSatisfying(
              CloseReason.Error.class, reason -> assertThat(reason.cause()).isSameAs(failure));
      Throwable later = Await.failure(connection.write(bytes("late")), "a write after that");
      assertThat(later).isInstanceOf(ConnectionClosedException.class).hasCause(failure);
    }
  }

  /** Closing fails the writes still queued, and drops them from the pending count. */
  @Test
  void closeFailsTheWritesStillQueued() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    // Small socket buffers at both ends, so the kernel cannot take the whole write.
    SocketOptions options = SocketOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            Transport.TCP.bindAddress(dir),
            options,
            servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(options, client);
      servers.next().connection().pauseReading();
      CompletableFuture<Void> queued = connection.write(ByteBuffer.allocate(4 << 20));
      Await.until(
          () -> loopback.group().memoryStats().pendingWriteBytes() > 0, () -> "a queued write");

      connection.close();

      assertThat(Await.failure(queued, "the queued write"))
          .isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("is closed (normal)");
      assertThat(Await.result(client.closed(), "close")).isEqualTo(CloseReason.NORMAL);
      assertThat(loopback.group().memoryStats().pendingWriteBytes()).isZero();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Loopback start(Accepted<RecordingHandler> servers) throws Exception {
    return Loopback.start(
        TransportConfig.defaults().withEventLoops(2), Transport.TCP.bindAddress(dir), servers);
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
  }
}
