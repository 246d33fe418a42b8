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
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Write-queue watermarks: a connection reports not writable once pending bytes pass the high mark
 * and writable again once they drain to the low mark, so an owner can stop feeding it.
 */
class BackpressureTest {
  private static final int LOW = 64 * 1024;
  private static final int HIGH = 256 * 1024;
  private static final int BLOCK = 16 * 1024;
  private static final SocketOptions SMALL_BUFFERS =
      SocketOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);
  private static final TransportConfig CONFIG =
      TransportConfig.defaults().withEventLoops(2).withWatermarks(LOW, HIGH);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Transport.class)
  void notWritableJustAboveTheHighMarkAndWritableAgainAtTheLowMark(Transport transport)
      throws Exception {
    Accepted<PausedReceiver> receivers = new Accepted<>(PausedReceiver::new);
    try (Payload payload = new PayloadPattern(3).newPayload(BufferKind.DIRECT, 40 * BLOCK);
        Loopback loopback =
            Loopback.start(CONFIG, transport.bindAddress(dir), SMALL_BUFFERS, receivers)) {
      RecordingHandler sender = new RecordingHandler();
      Connection client = loopback.connect(SMALL_BUFFERS, sender);
      for (int at = 0; at < payload.size(); at += BLOCK) {
        client.write(payload.buffer().position(at).limit(at + BLOCK).slice());
      }
      client.shutdownOutput();
      PausedReceiver receiver = receivers.next();

      Await.until(() -> !sender.writabilityChanges().isEmpty(), () -> "the high watermark");
      WritabilityChange full = sender.writabilityChanges().getFirst();
      assertThat(full.writable()).isFalse();
      // It fired on the write that crossed the mark: one block more than the mark at most.
      assertThat(full.pendingWriteBytes()).isGreaterThan(HIGH).isLessThanOrEqualTo(HIGH + BLOCK);
      assertThat(client.isWritable()).isFalse();

      Await.result(receiver.active, "the receiver").resumeReading();
      DigestingHandler.Received received = Await.result(receiver.received(), "the payload");
      assertThat(received.sha256()).isEqualTo(payload.sha256());
      Await.result(sender.closed(), "sender close");
      List<WritabilityChange> changes = sender.writabilityChanges();
      assertThat(changes).hasSize(2);
      assertThat(changes.get(1).writable()).isTrue();
      assertThat(changes.get(1).pendingWriteBytes()).isLessThanOrEqualTo(LOW);
      assertThat(client.isWritable()).isTrue();
    }
  }

  /** The proxy's pattern: feed a connection only while it is writable. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void aWriterThatStopsWhenNotWritableNeverQueuesMoreThanOneWritePastTheHighMark(
      Transport transport) throws Exception {
    Accepted<PausedReceiver> receivers = new Accepted<>(PausedReceiver::new);
    try (Payload payload = new PayloadPattern(4).newPayload(BufferKind.HEAP, 8 << 20);
        Loopback loopback =
            Loopback.start(CONFIG, transport.bindAddress(dir), SMALL_BUFFERS, receivers)) {
      Pump pump = new Pump(payload);
      loopback.connect(SMALL_BUFFERS, pump);
      PausedReceiver receiver = receivers.next();
      // The receiver starts paused, so the pump must stop at the high mark before it resumes.
      Await.until(() -> !pump.writabilityChanges().isEmpty(), () -> "the pump to stop");
      Await.result(receiver.active, "the receiver").resumeReading();

      DigestingHandler.Received received = Await.result(receiver.received(), "the payload");
      assertThat(received.sha256()).isEqualTo(payload.sha256());
      Await.result(pump.finished, "the pump");
      assertThat(pump.maxPending).isGreaterThan(HIGH).isLessThanOrEqualTo(HIGH + BLOCK);
      List<WritabilityChange> changes = pump.writabilityChanges();
      assertThat(changes).isNotEmpty();
      for (int i = 0; i < changes.size(); i++) {
        assertThat(changes.get(i).writable()).as("change %d alternates", i).isEqualTo(i % 2 == 1);
      }
    }
  }

  /** Writes the payload in blocks while the connection is writable; resumes when it is again. */
  private static final class Pump extends RecordingHandler {
    final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final Payload payload;
    private int sent;
    volatile long maxPending;

    Pump(Payload payload) {
      this.payload = payload;
    }

    @Override
    public void onActive(Connection connection) {
      super.onActive(connection);
      pump(connection);
    }

    @Override
    public void onWritabilityChanged(Connection connection, boolean writable) {
      super.onWritabilityChanged(connection, writable);
      if (writable) {
        pump(connection);
      }
    }

    private void pump(Connection connection) {
      while (connection.isWritable() && sent < payload.size()) {
        int n = Math.min(BLOCK, payload.size() - sent);
        ByteBuffer block = payload.buffer().position(sent).limit(sent + n).slice();
        sent += n;
        connection.write(block, null);
        maxPending = Math.max(maxPending, connection.pendingWriteBytes());
      }
      if (sent == payload.size() && !finished.isDone()) {
        connection.shutdownOutput();
        finished.complete(null);
      }
    }
  }

  /** A digesting receiver that pauses before its first read. */
  private static final class PausedReceiver extends DigestingHandler {
    final CompletableFuture<Connection> active = new CompletableFuture<>();

    PausedReceiver() {
      super(CONFIG.copyThreshold());
    }

    @Override
    public void onActive(Connection connection) {
      connection.pauseReading();
      active.complete(connection);
    }
  }
}
