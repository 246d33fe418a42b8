package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import dev.sluice.memory.SlabChunk;
import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.ExactSize;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.Transport;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seed 000's shape: ack-paced writes (each lands as its own read) at sizes around every threshold,
 * and a receiver that keeps every chunk. Every chunk is exact-size, copied when it is within the
 * copy threshold and a handed-off slab above it; the kept bytes are intact and readable from
 * another thread; the loops account for every handed-off slab until it is released.
 */
class ExactSizeChunkTest {
  private static final int REPEATS = 3;

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    TransportConfig defaults = TransportConfig.defaults().withEventLoops(2);
    TransportConfig custom = defaults.withSlab(8192, 1000);
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      cases.add(
          Arguments.of(
              transport,
              defaults,
              new int[] {1, 4095, 4096, 4097, 32767, 32768, 32769, 65535, 65536}));
      cases.add(Arguments.of(transport, custom, new int[] {1, 999, 1000, 1001, 8191, 8192, 8193}));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, slab {1}")
  @MethodSource("cases")
  void everyKeptChunkIsExactSizeAndIntact(Transport transport, TransportConfig config, int[] sizes)
      throws Exception {
    int[] messages = IntStream.of(sizes).flatMap(s -> IntStream.of(s, s, s)).toArray();
    assertThat(messages).hasSize(sizes.length * REPEATS);
    Accepted<RetainingReceiver> receivers =
        new Accepted<>(() -> new RetainingReceiver(config.copyThreshold(), messages));
    try (Loopback loopback = Loopback.start(config, transport.bindAddress(dir), receivers)) {
      AckPacedSender sender = new AckPacedSender(messages);
      loopback.connect(sender);
      Await.result(sender.done, "every message acknowledged");
      List<List<Chunk>> kept = Await.result(receivers.next().done, "every message received");
      try {
        checkKeptChunks(loopback, config, messages, kept);
      } finally {
        kept.forEach(chunks -> chunks.forEach(Chunk::release)); // before the group closes
      }
      Await.until(
          () -> loopback.group().memoryStats().handedOffChunks() == 0,
          () -> loopback.group().memoryStats() + " after releasing every chunk");
      assertThat(loopback.group().memoryStats().handedOffBytes()).isZero();
    }
  }

  private static void checkKeptChunks(
      Loopback loopback, TransportConfig config, int[] messages, List<List<Chunk>> kept) {
    // Checked on the test thread: kept chunks belong to the application, not to the loop.
    long slabChunks = 0;
    for (int m = 0; m < messages.length; m++) {
      List<Chunk> chunks = kept.get(m);
      byte[] expected = message(m, messages[m]);
      ByteBuffer actual = ByteBuffer.allocate(messages[m]);
      for (Chunk chunk : chunks) {
        ExactSize.check(chunk, config.copyThreshold());
        actual.put(chunk.buffer());
        slabChunks += chunk instanceof SlabChunk ? 1 : 0;
      }
      assertThat(actual.array()).as("message %d of %d B", m, messages[m]).isEqualTo(expected);
      if (messages[m] <= config.copyThreshold()) {
        assertThat(chunks).allMatch(c -> c instanceof HeapChunk);
      } else {
        assertThat(chunks).as("message of %d B", messages[m]).anyMatch(c -> c instanceof SlabChunk);
      }
    }
    assertThat(loopback.group().memoryStats().handedOffChunks()).isEqualTo(slabChunks);
    assertThat(loopback.group().memoryStats().handedOffBytes())
        .isEqualTo(slabChunks * config.slabSize());
  }

  private static byte[] message(int index, int size) {
    byte[] bytes = new byte[size];
    new PayloadPattern(index).fill(ByteBuffer.wrap(bytes), 0);
    return bytes;
  }

  /** Sends message 0, then each next message when the previous one is acknowledged. */
  private static final class AckPacedSender implements ChunkHandler {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final int[] messages;
    private int acked;

    AckPacedSender(int[] messages) {
      this.messages = messages;
    }

    @Override
    public void onActive(Connection connection) {
      connection.write(ByteBuffer.wrap(message(0, messages[0])));
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      int acks = chunk.length();
      chunk.release();
      if (acks != 1) {
        done.completeExceptionally(new AssertionError(acks + " acks at once"));
        return;
      }
      acked++;
      if (acked == messages.length) {
        done.complete(null);
        connection.close();
      } else {
        connection.write(ByteBuffer.wrap(message(acked, messages[acked])));
      }
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      if (!done.isDone()) {
        done.completeExceptionally(new AssertionError("sender closed early: " + reason));
      }
    }
  }

  /** Keeps every chunk, grouped by message, and acknowledges each complete message. */
  private static final class RetainingReceiver implements ChunkHandler {
    final CompletableFuture<List<List<Chunk>>> done = new CompletableFuture<>();
    private final int copyThreshold;
    private final int[] messages;
    private final List<List<Chunk>> chunks = new ArrayList<>();
    private int received;

    RetainingReceiver(int copyThreshold, int[] messages) {
      this.copyThreshold = copyThreshold;
      this.messages = messages;
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      if (chunks.isEmpty() || received == messages[chunks.size() - 1]) {
        chunks.add(new ArrayList<>());
        received = 0;
      }
      chunks.getLast().add(chunk);
      ExactSize.check(chunk, copyThreshold);
      received += chunk.length();
      int expected = messages[chunks.size() - 1];
      if (received > expected) {
        throw new AssertionError("a read spans two ack-paced messages");
      }
      if (received == expected) {
        connection.write(ByteBuffer.wrap(new byte[] {1}));
        if (chunks.size() == messages.length) {
          done.complete(chunks);
        }
      }
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      if (!done.isDone()) {
        chunks.forEach(list -> list.forEach(Chunk::release));
        done.completeExceptionally(new AssertionError("receiver closed early: " + reason));
      }
    }
  }
}
