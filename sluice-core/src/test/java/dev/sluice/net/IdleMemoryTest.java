package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.MemoryStats;
import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.BufferKind;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.Payload;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Sha256;
import dev.sluice.testing.Transport;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After traffic stops, the loops hold no write, copy or handed-off memory, and their read slabs are
 * bounded by loops x (1 + pool size) whatever the number of open connections: an idle connection
 * owns no buffer.
 */
class IdleMemoryTest {
  private static final int CONNECTIONS = 300;
  private static final int PAYLOAD = 200 * 1024;
  private static final SocketOptions SMALL_BUFFERS =
      SocketOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);

  @TempDir Path dir;

  @Test
  void idleConnectionsHoldNoBuffers() throws Exception {
    TransportConfig config = TransportConfig.defaults().withEventLoops(2);
    List<Payload> payloads = new ArrayList<>();
    try (Loopback loopback =
        Loopback.start(
            config,
            Transport.TCP.bindAddress(dir),
            SMALL_BUFFERS,
            new Accepted<>(Forwarder::new))) {
      List<EchoCheck> clients = new ArrayList<>();
      for (int i = 0; i < CONNECTIONS; i++) {
        Payload payload = new PayloadPattern(i).newPayload(BufferKind.HEAP, PAYLOAD);
        payloads.add(payload);
        EchoCheck client = new EchoCheck(payload);
        clients.add(client);
        loopback.connect(SMALL_BUFFERS, client).write(payload.buffer());
      }
      // The clients do not read yet, so the echo the server cannot send waits as exact-size copies.
      Await.until(
          () -> loopback.group().memoryStats().pendingCopyBytes() > 0,
          () -> "echoes to queue as copies: " + loopback.group().memoryStats());

      clients.forEach(client -> client.connection().resumeReading());
      for (EchoCheck client : clients) {
        assertThat(Await.result(client.echoed, "an echo")).isEqualTo(client.payload.sha256());
      }

      Await.until(
          () -> quiet(loopback.group().memoryStats()),
          () -> "the loops to go quiet: " + loopback.group().memoryStats());
      MemoryStats idle = loopback.group().memoryStats();
      long slabBound = (long) config.eventLoops() * (1 + config.slabPoolSize()) * config.slabSize();
      assertThat(idle.slabBytesReserved())
          .as("read slabs with %d idle connections open", 2 * CONNECTIONS)
          .isLessThanOrEqualTo(slabBound);
      assertThat(idle.stagingBytes())
          .isLessThanOrEqualTo((long) config.eventLoops() * config.stagingSize());
      for (EchoCheck client : clients) {
        assertThat(client.connection().isOpen()).isTrue();
      }
    } finally {
      payloads.forEach(Payload::close);
    }
  }

  private static boolean quiet(MemoryStats stats) {
    return stats.pendingWriteBytes() == 0
        && stats.pendingCopyBytes() == 0
        && stats.handedOffChunks() == 0
        && stats.handedOffBytes() == 0;
  }

  /** A forwarder's way of echoing: send the borrowed bytes on, copying only what must wait. */
  private static final class Forwarder extends RecordingHandler {
    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      connection.writeTransient(bytes.buffer(), null);
    }
  }

  /** Starts paused; completes with the SHA-256 of the echo once it is as long as the payload. */
  private static final class EchoCheck extends RecordingHandler {
    final Payload payload;
    final CompletableFuture<String> echoed = new CompletableFuture<>();
    private final MessageDigest digest = Sha256.newDigest();
    private long received;

    EchoCheck(Payload payload) {
      this.payload = payload;
    }

    @Override
    public void onActive(Connection connection) {
      connection.pauseReading();
      super.onActive(connection);
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      digest.update(chunk.buffer());
      received += chunk.length();
      chunk.release();
      if (received == payload.size()) {
        echoed.complete(Sha256.hex(digest));
      }
    }
  }
}
