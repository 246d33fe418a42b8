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
 * Every byte written arrives once, in order: patterned payloads hashed with SHA-256 at the
 * receiver, over TCP and Unix sockets, from heap and direct buffers, with and without a cap on each
 * socket write (which forces the partial-write paths).
 */
class IntegrityTest {
  private static final int[] SIZES = {1, 4095, 4096, 4097, 65536, 1 << 20, 16 << 20};
  private static final int LARGEST = 512 << 20;

  @TempDir Path dir;

  static Stream<Arguments> transfers() {
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      for (BufferKind kind : BufferKind.values()) {
        for (int size : SIZES) {
          WriteCaps.all().forEach(cap -> cases.add(Arguments.of(transport, kind, size, cap)));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1}, {2} B, write cap {3}")
  @MethodSource("transfers")
  void payloadWrittenInPiecesArrivesIntact(Transport transport, BufferKind kind, int size, int cap)
      throws Exception {
    try (Payload payload = new PayloadPattern(size).newPayload(kind, size)) {
      transferAndVerify(transport, cap, payload, 4);
    }
  }

  static Stream<Arguments> largest() {
    List<Arguments> cases = new ArrayList<>();
    for (BufferKind kind : BufferKind.values()) {
      WriteCaps.all().forEach(cap -> cases.add(Arguments.of(kind, cap)));
    }
    return cases.stream();
  }

  /** Seed 001's shape: one write of a 512 MiB buffer, queued by reference. */
  @ParameterizedTest(name = "TCP, {0}, 512 MiB in one write, write cap {1}")
  @MethodSource("largest")
  void halfAGibibyteInOneWriteArrivesIntact(BufferKind kind, int cap) throws Exception {
    try (Payload payload = new PayloadPattern(LARGEST).newPayload(kind, LARGEST)) {
      transferAndVerify(Transport.TCP, cap, payload, 1);
    }
  }

  private void transferAndVerify(Transport transport, int cap, Payload payload, int pieces)
      throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(cap);
    Accepted<DigestingHandler> receivers =
        new Accepted<>(() -> new DigestingHandler(config.copyThreshold()));
    try (Loopback loopback = Loopback.start(config, transport.bindAddress(dir), receivers)) {
      RecordingHandler sender = new RecordingHandler();
      Connection client = loopback.connect(sender);
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (ByteBuffer piece : payload.pieces(pieces)) {
        writes.add(client.write(piece));
      }
      client.shutdownOutput();

      DigestingHandler receiver = receivers.next();
      DigestingHandler.Received received = Await.result(receiver.received(), "the whole payload");
      assertThat(received.bytes()).isEqualTo(payload.size());
      assertThat(received.sha256()).isEqualTo(payload.sha256());
      for (CompletableFuture<Void> write : writes) {
        Await.result(write, "write completion");
      }
      assertThat(Await.result(sender.closed(), "sender close")).isEqualTo(CloseReason.NORMAL);
      assertThat(loopback.group().memoryStats().pendingWriteBytes()).isZero();
    }
  }
}
