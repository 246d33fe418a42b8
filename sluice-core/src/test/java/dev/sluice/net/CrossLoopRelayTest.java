package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.SlabChunk;
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
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A chunk belongs to the application, which may write it by reference to a connection on another
 * loop (a relay whose two legs live on different loops) and release it once written there.
 */
class CrossLoopRelayTest {
  private static final int SIZE = 16 << 20;

  @TempDir Path dir;

  static int[] caps() {
    return WriteCaps.all().toArray();
  }

  @ParameterizedTest(name = "write cap {0}")
  @MethodSource("caps")
  void chunksWrittenToAConnectionOnAnotherLoopArriveIntact(int cap) throws Exception {
    TransportConfig config =
        TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(cap);
    PayloadPattern pattern = new PayloadPattern(SIZE);
    Accepted<DigestingHandler> sinks =
        new Accepted<>(() -> new DigestingHandler(config.copyThreshold()));
    try (Loopback sink = Loopback.start(config, Transport.TCP.bindAddress(dir), sinks);
        Payload payload = pattern.newPayload(BufferKind.HEAP, SIZE)) {
      EventLoop relayLoop = sink.group().loops().get(0);
      EventLoop upstreamLoop = sink.group().loops().get(1);
      Connection upstream =
          Await.result(
              upstreamLoop.connect(
                  sink.address(), SocketOptions.defaults(), new RecordingHandler()),
              "connect upstream");
      AtomicLong handedOff = new AtomicLong();
      ConnectionHandler relay =
          new ChunkHandler() {
            @Override
            public void onChunk(Connection connection, Chunk chunk) {
              handedOff.addAndGet(chunk instanceof SlabChunk ? 1 : 0);
              upstream.write(chunk.buffer(), error -> chunk.release());
            }

            @Override
            public void onEndOfInput(Connection connection) {
              upstream.shutdownOutput();
              connection.shutdownOutput();
            }
          };
      Accepted<RecordingHandler> sources =
          new Accepted<>(
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onActive(Connection connection) {
                      super.onActive(connection);
                      connection.write(payload.buffer());
                      connection.shutdownOutput();
                    }
                  });
      Listener source =
          sink.group().listen(Transport.TCP.bindAddress(dir), SocketOptions.defaults(), sources);
      try {
        Connection relayed =
            Await.result(
                relayLoop.connect(source.localAddress(), SocketOptions.defaults(), relay),
                "connect the relay");
        assertThat(relayed.loop()).isNotSameAs(upstream.loop());

        DigestingHandler.Received received =
            Await.result(sinks.next().received(), "the relayed payload");
        assertThat(received.bytes()).isEqualTo(SIZE);
        assertThat(received.sha256()).isEqualTo(payload.sha256());
        assertThat(handedOff.get()).as("reads relayed as handed-off slabs").isPositive();
      } finally {
        source.close();
      }
    }
  }
}
