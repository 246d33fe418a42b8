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
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seed 003: every chunk a TLS read hands the application is exact-size (capacity == length, offset
 * 0), and only reads above the copy threshold hand off a slab, at every size around the record size
 * (16 KiB), the copy threshold (32 KiB) and the slab size (64 KiB), up to 16 MiB.
 */
class TlsExactSizeTest extends TlsTestBase {
  private static final int[] SIZES = {
    1, 100, 1400, 4095, 4096, 4097, 16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537,
    100_000, 1 << 20, 16 << 20
  };

  static Stream<Arguments> sizes() {
    return Stream.of("TLSv1.2", "TLSv1.3")
        .flatMap(p -> java.util.Arrays.stream(SIZES).mapToObj(s -> Arguments.of(p, s)));
  }

  @ParameterizedTest(name = "{0} {1} B")
  @MethodSource("sizes")
  void everyChunkIsExactSize(String protocol, int size) throws Exception {
    transfer(TransportConfig.defaults().withEventLoops(2), protocol, size);
  }

  @ParameterizedTest(name = "16 KiB slab, 4 KiB threshold: {0} B")
  @ValueSource(ints = {1, 4096, 4097, 16384, 16385, 40_000, 1 << 20})
  void everyChunkIsExactSizeWithASmallSlab(int size) throws Exception {
    transfer(
        TransportConfig.defaults().withEventLoops(2).withSlab(16 * 1024, 4 * 1024),
        "TLSv1.3",
        size);
  }

  private void transfer(TransportConfig config, String protocol, int size) throws Exception {
    EventLoopGroup group = group(config);
    ByteBuffer payload = new PayloadPattern(size).buffer(size, false);
    String expected = Sha256.hex(payload);
    Listener listener =
        listen(
            group,
            serverConfig().withProtocols(protocol),
            () ->
                new RecordingHandler() {
                  @Override
                  public void onActive(Connection connection) {
                    super.onActive(connection);
                    connection.write(payload.duplicate());
                    connection.shutdownOutput();
                  }
                });
    RecordingHandler client = new RecordingHandler(0, config.copyThreshold());
    var hash = client.expect(size);
    connect(group, clientConfig(), listener, client);

    assertThat(await(hash)).isEqualTo(expected);
    await(client.endOfInput());
    assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
    assertThat(client.violations()).isEmpty();
    assertThat(client.chunks()).isPositive();
    if (size <= config.copyThreshold()) {
      assertThat(client.handedOffChunks()).isZero();
    }
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }
}
