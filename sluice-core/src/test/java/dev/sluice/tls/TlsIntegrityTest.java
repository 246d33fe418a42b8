package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.TransportConfig;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Sha256;
import dev.sluice.testing.TlsTestBase;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both directions at once, SHA-256 at each receiver, with readers that pause and resume at random
 * (seeded) points and, in half the runs, every socket write capped so that records are split across
 * partial writes and reads end in partial records.
 */
class TlsIntegrityTest extends TlsTestBase {
  private static final int PAYLOAD = 6 << 20;

  static Stream<Arguments> cases() {
    return Stream.of("TLSv1.2", "TLSv1.3")
        .flatMap(
            p ->
                Stream.of(0, 7001)
                    .flatMap(cap -> Stream.of(false, true).map(d -> Arguments.of(p, cap, d))));
  }

  /** Writes its payload when active, pauses reading now and then, then shuts down output. */
  static final class Peer extends RecordingHandler {
    private final ByteBuffer payload;
    private final Random random;
    final CompletableFuture<Void> written = new CompletableFuture<>();
    int pauses;

    Peer(ByteBuffer payload, long seed) {
      super(0, TransportConfig.DEFAULT_COPY_THRESHOLD);
      this.payload = payload;
      this.random = new Random(seed);
    }

    @Override
    public void onActive(Connection connection) {
      super.onActive(connection);
      // In slices, so the queue holds several buffers by reference.
      ByteBuffer rest = payload.duplicate();
      while (rest.hasRemaining()) {
        int n = Math.min(rest.remaining(), 1 + random.nextInt(3 << 20));
        ByteBuffer slice = rest.slice(rest.position(), n);
        rest.position(rest.position() + n);
        boolean last = !rest.hasRemaining();
        connection.write(
            slice,
            error -> {
              if (error != null) {
                written.completeExceptionally(error);
              } else if (last) {
                written.complete(null);
              }
            });
      }
    }

    @Override
    protected void onBytes(Connection connection, byte[] bytes) {
      super.onBytes(connection, bytes);
      if (random.nextInt(8) == 0) {
        pauses++;
        connection.pauseReading();
        connection
            .loop()
            .schedule(Duration.ofMillis(1 + random.nextInt(20)), connection::resumeReading);
      }
    }
  }

  @ParameterizedTest(name = "{0} cap={1} direct={2}")
  @MethodSource("cases")
  void bothDirectionsArriveIntactWithPausedReadersAndPartialWrites(
      String protocol, int writeCap, boolean direct) throws Exception {
    EventLoopGroup group =
        group(TransportConfig.defaults().withEventLoops(2).withMaxBytesPerSocketWrite(writeCap));
    ByteBuffer toClient = new PayloadPattern(1).buffer(PAYLOAD, direct);
    ByteBuffer toServer = new PayloadPattern(2).buffer(PAYLOAD - 12345, direct);
    Peer server = new Peer(toClient, 3);
    Peer client = new Peer(toServer, 4);
    var serverHash = server.expect(toServer.remaining());
    var clientHash = client.expect(toClient.remaining());
    Listener listener = listen(group, serverConfig().withProtocols(protocol), () -> server);
    connect(group, clientConfig().withProtocols(protocol), listener, client);

    assertThat(await(clientHash)).isEqualTo(Sha256.hex(toClient));
    assertThat(await(serverHash)).isEqualTo(Sha256.hex(toServer));
    await(server.written);
    await(client.written);
    assertThat(server.violations()).isEmpty();
    assertThat(client.violations()).isEmpty();
    assertThat(server.pauses + client.pauses).isPositive();

    TlsConnection c = await(client.tlsActive());
    c.shutdownOutput();
    await(server.endOfInput());
    await(client.endOfInput());
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(await(server.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }
}
