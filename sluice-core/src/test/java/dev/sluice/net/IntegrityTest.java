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
import dev.sluice.testing.StreamCase;
import dev.sluice.testing.Transport;
import dev.sluice.testing.WriteCaps;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every byte written arrives once, in order: patterned payloads hashed with SHA-256 at the
 * receiver, over every cell of the stream matrix (TCP and Unix sockets, plain and TLS 1.2 and 1.3,
 * with and without a cap on each socket write, which forces the partial-write paths), from heap and
 * direct buffers.
 */
class IntegrityTest {
  private static final int[] SIZES = {1, 4095, 4096, 4097, 65536, 1 << 20, 16 << 20};
  private static final int LARGEST = 512 << 20;

  @TempDir Path dir;

  static Stream<Arguments> transfers() {
    List<Arguments> cases = new ArrayList<>();
    StreamCase.all()
        .forEach(
            cell -> {
              for (BufferKind kind : BufferKind.values()) {
                for (int size : SIZES) {
                  cases.add(Arguments.of(cell, kind, size));
                }
              }
            });
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1}, {2} B")
  @MethodSource("transfers")
  void payloadWrittenInPiecesArrivesIntact(StreamCase cell, BufferKind kind, int size)
      throws Exception {
    try (Payload payload = new PayloadPattern(size).newPayload(kind, size)) {
      transferAndVerify(cell, payload, 4);
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
      transferAndVerify(new StreamCase(Transport.TCP, StreamCase.Security.PLAIN, cap), payload, 1);
    }
  }

  static Stream<Arguments> transportsAndCaps() {
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      WriteCaps.all().forEach(cap -> cases.add(Arguments.of(transport, cap)));
    }
    return cases.stream();
  }

  /**
   * Hundreds of writes of random sizes, heap and direct in long runs, queued behind a paused
   * reader: they leave in order through single and gathering writes, including gathers that fill
   * the loop's whole gather array and runs that switch kind mid-queue.
   */
  @ParameterizedTest(name = "{0}, 600 queued writes of both kinds, write cap {1}")
  @MethodSource("transportsAndCaps")
  void queuedWritesOfBothKindsArriveInOrder(Transport transport, int cap) throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(cap);
    // Small socket buffers: the kernel holds little, so almost every write queues.
    SocketOptions options = SocketOptions.defaults().withBufferSizes(64 * 1024, 64 * 1024);
    PayloadPattern pattern = new PayloadPattern(600 + cap);
    Random random = new Random(cap);
    Accepted<PausedReceiver> receivers =
        new Accepted<>(() -> new PausedReceiver(config.copyThreshold()));
    try (Loopback loopback =
            Loopback.start(config, transport.bindAddress(dir), options, receivers);
        Arena directPieces = Arena.ofShared()) {
      Connection client = loopback.connect(options, new RecordingHandler());
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      long offset = 0;
      boolean direct = false;
      for (int i = 0; i < 600; i++) {
        if (random.nextInt(100) == 0) {
          direct = !direct;
        }
        int size = 1 + random.nextInt(random.nextBoolean() ? 200 : 20_000);
        ByteBuffer piece =
            direct ? directPieces.allocate(size).asByteBuffer() : ByteBuffer.allocate(size);
        pattern.fill(piece, offset);
        offset += size;
        writes.add(client.write(piece));
      }
      client.shutdownOutput();
      Await.until(
          () -> loopback.group().memoryStats().pendingWriteBytes() > 0, () -> "queued writes");
      PausedReceiver receiver = receivers.next();
      Await.result(receiver.active, "the receiver").resumeReading();

      DigestingHandler.Received received = Await.result(receiver.received(), "every write");
      assertThat(received.bytes()).isEqualTo(offset);
      assertThat(received.sha256()).isEqualTo(pattern.sha256(offset));
      for (CompletableFuture<Void> write : writes) {
        Await.result(write, "write completion");
      }
    }
  }

  /** Digests a stream, but reads nothing until told to resume. */
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

  private void transferAndVerify(StreamCase cell, Payload payload, int pieces) throws Exception {
    Accepted<DigestingHandler> receivers =
        new Accepted<>(() -> new DigestingHandler(TransportConfig.DEFAULT_COPY_THRESHOLD));
    try (Loopback loopback = Loopback.start(cell, dir, SocketOptions.defaults(), receivers)) {
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
      Await.until(
          () -> loopback.group().memoryStats().pendingWriteBytes() == 0,
          () -> "no write left queued");
    }
  }
}
