package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.MemoryStats;
import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 8,000 connections open at once with both ends in this JVM (16,000 descriptors of the 20,000 a
 * process may have): each echoes a greeting, all sit idle together holding no buffers, and all
 * close normally.
 */
class ManyConnectionsTest {
  private static final int CONNECTIONS = 8_000;
  private static final int CONNECTS_IN_FLIGHT = 500;

  @TempDir Path dir;

  @Test
  void eightThousandConnectionsEchoIdleAndCloseCleanly() throws Exception {
    TransportConfig config = TransportConfig.defaults().withEventLoops(2);
    Accepted<Echo> servers = new Accepted<>(Echo::new);
    try (Loopback loopback = Loopback.start(config, Transport.TCP.bindAddress(dir), servers)) {
      List<Greeter> clients = new ArrayList<>(CONNECTIONS);
      List<CompletableFuture<Connection>> connects = new ArrayList<>(CONNECTIONS);
      Semaphore inFlight = new Semaphore(CONNECTS_IN_FLIGHT);
      for (int i = 0; i < CONNECTIONS; i++) {
        Greeter client = new Greeter("hello from " + i);
        clients.add(client);
        inFlight.acquire();
        CompletableFuture<Connection> connect =
            loopback.group().connect(loopback.address(), SocketOptions.defaults(), client);
        connect.whenComplete((c, e) -> inFlight.release());
        connects.add(connect);
      }
      for (CompletableFuture<Connection> connect : connects) {
        Await.result(connect, "a connect");
      }
      for (Greeter client : clients) {
        Await.result(client.echoed, "an echo");
      }

      servers.awaitCount(CONNECTIONS);
      assertThat(loopback.listener().acceptedCount()).isEqualTo(CONNECTIONS);
      assertThat(clients).allMatch(c -> c.connection().isOpen());
      assertThat(servers.all()).allMatch(s -> s.connection().isOpen());
      Await.until(
          () -> loopback.group().memoryStats().pendingWriteBytes() == 0,
          () -> "writes to drain: " + loopback.group().memoryStats());
      MemoryStats idle = loopback.group().memoryStats();
      assertThat(idle.slabBytesReserved())
          .as("read slabs with %d connections open", 2 * CONNECTIONS)
          .isLessThanOrEqualTo(
              (long) config.eventLoops() * (1 + config.slabPoolSize()) * config.slabSize());
      assertThat(idle.pendingCopyBytes()).isZero();
      assertThat(idle.handedOffChunks()).isZero();

      clients.forEach(client -> client.connection().shutdownOutput());
      for (Greeter client : clients) {
        assertThat(Await.result(client.closed(), "a client's close")).isEqualTo(CloseReason.NORMAL);
      }
      for (Echo server : servers.all()) {
        assertThat(Await.result(server.closed(), "a server's close")).isEqualTo(CloseReason.NORMAL);
      }
    }
  }

  /** Echoes everything back. */
  private static final class Echo extends RecordingHandler {
    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      connection.write(chunk.buffer(), error -> chunk.release());
    }
  }

  /** Sends a greeting on connect and completes when all of it came back. */
  private static final class Greeter extends RecordingHandler {
    final CompletableFuture<Void> echoed = new CompletableFuture<>();
    private final byte[] greeting;

    Greeter(String greeting) {
      this.greeting = greeting.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void onActive(Connection connection) {
      super.onActive(connection);
      connection.write(ByteBuffer.wrap(greeting));
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      super.onChunk(connection, chunk);
      byte[] received = receivedBytes();
      if (received.length == greeting.length) {
        if (ByteBuffer.wrap(received).equals(ByteBuffer.wrap(greeting))) {
          echoed.complete(null);
        } else {
          echoed.completeExceptionally(
              new AssertionError("echo " + new String(received, StandardCharsets.US_ASCII)));
        }
      }
    }
  }
}
