package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.BufferKind;
import dev.sluice.testing.End;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.Payload;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.StreamCase;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Half-close from either end: the other end sees end of input as its own event, the reverse
 * direction keeps working, and once both directions are shut both ends close normally; over every
 * cell of the stream matrix that half-closes (TLS 1.2 on the JDK does not).
 */
class HalfCloseTest {
  @TempDir Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    StreamCase.withHalfClose()
        .forEach(
            cell -> {
              for (End first : End.values()) {
                cases.add(Arguments.of(cell, first));
              }
            });
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1} shuts its output first")
  @MethodSource("cases")
  void theOtherDirectionKeepsWorkingUntilBothAreShut(StreamCase cell, End first) throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(() -> new RecordingHandler(false));
    try (Payload request = new PayloadPattern(1).newPayload(BufferKind.HEAP, 100_000);
        Payload response = new PayloadPattern(2).newPayload(BufferKind.DIRECT, 1 << 20);
        Loopback loopback = Loopback.start(cell, dir, SocketOptions.defaults(), servers)) {
      RecordingHandler client = new RecordingHandler(false);
      loopback.connect(client);
      RecordingHandler server = servers.next();
      RecordingHandler closer = first == End.CLIENT ? client : server;
      RecordingHandler other = first == End.CLIENT ? server : client;

      closer.connection().write(request.buffer());
      closer.connection().shutdownOutput();
      Await.result(other.endOfInput(), "end of input at the other end");
      assertThat(ByteBuffer.wrap(other.receivedBytes())).isEqualTo(request.buffer());
      assertThat(other.connection().isOpen()).isTrue();
      assertThat(closer.connection().isOpen()).isTrue();

      Await.result(other.connection().write(response.buffer()), "the reply after end of input");
      Await.until(
          () -> closer.receivedCount() == response.size(),
          () -> closer.receivedCount() + " of the reply's " + response.size() + " bytes");
      assertThat(ByteBuffer.wrap(closer.receivedBytes())).isEqualTo(response.buffer());
      assertThat(closer.endOfInput()).as("end of input before the other end shut down").isNotDone();
      assertThat(closer.closed()).isNotDone();

      other.connection().shutdownOutput();
      assertThat(Await.result(closer.closed(), "close of " + first)).isEqualTo(CloseReason.NORMAL);
      assertThat(Await.result(other.closed(), "close of the other end"))
          .isEqualTo(CloseReason.NORMAL);
      assertThat(closer.endOfInput()).isDone();
    }
  }
}
