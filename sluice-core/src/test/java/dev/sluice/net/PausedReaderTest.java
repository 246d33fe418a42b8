package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.BufferKind;
import dev.sluice.testing.DigestingHandler;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.Payload;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.RecordingHandler.WritabilityChange;
import dev.sluice.testing.Transport;
import dev.sluice.testing.WriteCaps;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A receiver that pauses reading makes the writer's queue pass the high watermark; once it resumes,
 * every byte arrives exactly once and in order, and the writer becomes writable again.
 */
class PausedReaderTest {
  private static final int PAYLOAD = 4 << 20;

  // Small socket buffers, so the kernel holds far less than the payload and the queue must grow.
  private static final SocketOptions SMALL_BUFFERS =
      SocketOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      for (BufferKind kind : BufferKind.values()) {
        WriteCaps.all().forEach(cap -> cases.add(Arguments.of(transport, kind, cap)));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1}, write cap {2}")
  @MethodSource("cases")
  void everyByteArrivesOnceAfterTheReaderResumes(Transport transport, BufferKind kind, int cap)
      throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(cap);
    Accepted<PausedReceiver> receivers =
        new Accepted<>(() -> new PausedReceiver(config.copyThreshold()));
    try (Payload payload = new PayloadPattern(PAYLOAD + cap).newPayload(kind, PAYLOAD);
        Loopback loopback =
            Loopback.start(config, transport.bindAddress(dir), SMALL_BUFFERS, receivers)) {
      RecordingHandler sender = new RecordingHandler();
      Connection client = loopback.connect(SMALL_BUFFERS, sender);
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (ByteBuffer piece : payload.pieces(8)) {
        writes.add(client.write(piece));
      }
      client.shutdownOutput();
      PausedReceiver receiver = receivers.next();

      Await.until(() -> !sender.writabilityChanges().isEmpty(), () -> "the writer to fill up");
      WritabilityChange full = sender.writabilityChanges().getFirst();
      assertThat(full.writable()).isFalse();
      assertThat(full.pendingWriteBytes()).isGreaterThan(config.writeHighWatermark());
      assertThat(receiver.bytesSoFar()).as("bytes read while paused").isZero();

      Await.result(receiver.active, "the receiver").resumeReading();
      DigestingHandler.Received received = Await.result(receiver.received(), "the payload");
      assertThat(received.bytes()).isEqualTo(PAYLOAD);
      assertThat(received.sha256()).isEqualTo(payload.sha256());
      for (CompletableFuture<Void> write : writes) {
        Await.result(write, "write completion");
      }
      assertThat(Await.result(sender.closed(), "sender close")).isEqualTo(CloseReason.NORMAL);
      List<WritabilityChange> changes = sender.writabilityChanges();
      assertThat(changes).hasSize(2);
      assertThat(changes.get(1).writable()).isTrue();
      assertThat(changes.get(1).pendingWriteBytes())
          .isLessThanOrEqualTo(config.writeLowWatermark());
    }
  }

  /** Pauses before its first read. */
  private static final class PausedReceiver extends DigestingHandler {
    final CompletableFuture<Connection> active = new CompletableFuture<>();

    PausedReceiver(int copyThreshold) {
      super(copyThreshold);
    }

    @Override
    public void onActive(Connection connection) {
      connection.pauseReading();
      active.complete(connection);
    }
  }
}
