package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Write completions and writability changes are delivered after the call that caused them returns:
 * a handler may send its next message from a completion without the stack growing, and a write that
 * reached the socket is reported done even when the connection closes right after.
 */
class WriteCompletionTest {
  /** Small socket buffers, so that a 16 MiB write is stuck behind a paused reader. */
  private static final SocketOptions SMALL_BUFFERS =
      SocketOptions.defaults().withBufferSizes(64 * 1024, 64 * 1024);

  @Test
  void aSenderThatWritesFromItsCompletionNeverReentersWrite() throws Exception {
    int messages = 200_000;
    int size = 16;
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            servers)) {
      ChainSender sender = new ChainSender(messages, size);
      loopback.connect(sender);
      RecordingHandler server = servers.next();
      Await.result(sender.done, "the chain of writes");
      Await.until(
          () -> server.receivedCount() == messages * size,
          () -> server.receivedCount() + " of " + messages * size + " bytes received");
      assertThat(sender.reentered.get()).as("callbacks run inside write()").isZero();
      assertThat(sender.maxDepth.get()).as("completion nesting").isEqualTo(1);
    }
  }

  @Test
  void aWriteTheSocketTookSucceedsWhenTheConnectionClosesOnceDrained() throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withWatermarks(16 * 1024, 32 * 1024);
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(config, new InetSocketAddress("127.0.0.1", 0), SMALL_BUFFERS, servers)) {
      CompletableFuture<Throwable> bigWrite = new CompletableFuture<>();
      RecordingHandler client =
          new RecordingHandler() {
            @Override
            public void onWritabilityChanged(Connection connection, boolean writable) {
              super.onWritabilityChanged(connection, writable);
              if (writable) {
                closeOnceDrained(connection);
              }
            }

            /** Closes as soon as every byte was handed to the socket. */
            private void closeOnceDrained(Connection connection) {
              if (connection.pendingWriteBytes() == 0) {
                connection.close();
              } else {
                connection
                    .loop()
                    .schedule(Duration.ofMillis(1), () -> closeOnceDrained(connection));
              }
            }
          };
      Connection connection = loopback.connect(SMALL_BUFFERS, client);
      RecordingHandler server = servers.next();
      server.connection().pauseReading();
      connection.write(ByteBuffer.allocate(16 << 20), error -> bigWrite.complete(error));
      Await.until(() -> !connection.isWritable(), () -> "the client to become unwritable");
      server.connection().resumeReading();
      assertThat(Await.result(bigWrite, "the big write's completion"))
          .as("the write whose every byte reached the socket")
          .isNull();
    }
  }

  /** Sends {@code count} messages, each from the previous one's completion. */
  private static final class ChainSender extends RecordingHandler {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final AtomicInteger reentered = new AtomicInteger();
    final AtomicInteger maxDepth = new AtomicInteger();
    private final int count;
    private final int size;
    private int sent;
    private int depth;
    private boolean inWrite;
    private Connection connection;

    ChainSender(int count, int size) {
      this.count = count;
      this.size = size;
    }

    @Override
    public void onActive(Connection connection) {
      super.onActive(connection);
      this.connection = connection;
      sendNext();
    }

    @Override
    public void onWritabilityChanged(Connection connection, boolean writable) {
      if (inWrite) {
        reentered.incrementAndGet();
      }
    }

    private void sendNext() {
      if (sent == count) {
        done.complete(null);
        return;
      }
      sent++;
      inWrite = true;
      connection.write(ByteBuffer.allocate(size), this::onWritten);
      inWrite = false;
    }

    private void onWritten(Throwable error) {
      if (inWrite) {
        reentered.incrementAndGet();
      }
      if (error != null) {
        done.completeExceptionally(error);
        return;
      }
      depth++;
      maxDepth.accumulateAndGet(depth, Math::max);
      try {
        sendNext();
      } finally {
        depth--;
      }
    }
  }
}
