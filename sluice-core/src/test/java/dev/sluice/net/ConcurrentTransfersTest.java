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

/** Many transfers at once, interleaved on the same loops, each arriving intact. */
class ConcurrentTransfersTest {
  private static final int CONNECTIONS = 200;

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      WriteCaps.all().forEach(cap -> cases.add(Arguments.of(transport, cap)));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, write cap {1}")
  @MethodSource("cases")
  void twoHundredConcurrentTransfersEachArriveIntact(Transport transport, int cap)
      throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(cap);
    Accepted<DigestingHandler> receivers =
        new Accepted<>(() -> new DigestingHandler(config.copyThreshold()));
    List<Payload> payloads = new ArrayList<>();
    try (Loopback loopback = Loopback.start(config, transport.bindAddress(dir), receivers)) {
      List<RecordingHandler> senders = new ArrayList<>();
      List<Connection> clients = new ArrayList<>();
      for (int i = 0; i < CONNECTIONS; i++) {
        // Sizes from 64 KiB to ~260 KiB, none a multiple of the stamp interval; a stream each.
        int size = 64 * 1024 + i * 997;
        BufferKind kind = i % 2 == 0 ? BufferKind.HEAP : BufferKind.DIRECT;
        payloads.add(new PayloadPattern(1_000 + i).newPayload(kind, size));
        RecordingHandler sender = new RecordingHandler();
        senders.add(sender);
        clients.add(loopback.connect(sender));
      }

      // All connections are open; now every one of them sends at once.
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int i = 0; i < CONNECTIONS; i++) {
        for (ByteBuffer piece : payloads.get(i).pieces(3)) {
          writes.add(clients.get(i).write(piece));
        }
        clients.get(i).shutdownOutput();
      }

      List<String> expected = new ArrayList<>();
      for (Payload payload : payloads) {
        expected.add(payload.size() + " B " + payload.sha256());
      }
      receivers.awaitCount(CONNECTIONS);
      List<String> received = new ArrayList<>();
      for (DigestingHandler receiver : receivers.all()) {
        DigestingHandler.Received r = Await.result(receiver.received(), "a transfer");
        received.add(r.bytes() + " B " + r.sha256());
      }
      assertThat(received).containsExactlyInAnyOrderElementsOf(expected);
      for (CompletableFuture<Void> write : writes) {
        Await.result(write, "write completion");
      }
      for (RecordingHandler sender : senders) {
        assertThat(Await.result(sender.closed(), "sender close")).isEqualTo(CloseReason.NORMAL);
      }
    } finally {
      payloads.forEach(Payload::close);
    }
  }
}
