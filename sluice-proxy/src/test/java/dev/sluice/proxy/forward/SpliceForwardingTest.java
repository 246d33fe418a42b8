package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.EventLoop;
import dev.sluice.net.Transport;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoClient.Security;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A raw TCP-to-TCP pair on epoll splices while it streams ({@code splice: auto}) and copies with
 * {@code splice: off}; either way a large stream is echoed intact, the budget ends empty and the
 * legs count every byte. On NIO nothing splices.
 */
class SpliceForwardingTest {
  private static final long SIZE = 32L << 20;

  @TempDir Path dir;

  @ParameterizedTest(name = "splice: {0}")
  @ValueSource(strings = {"auto", "off"})
  void aStreamIsEchoedIntactAndSplicedOnlyWhenAllowed(String mode) throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                splice: %s
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                clusters:
                  - name: echo
                    upstreams: [{address: "%s"}]
                """
                    .formatted(mode, ForwardingTest.address(echo.address())),
                dir)) {
      List<EventLoop> loops = proxy.runtime().group().loops();
      long before = spliced(loops);
      EchoClient.Result result =
          EchoClient.echo(proxy.address("front"), Security.PLAIN, "localhost", SIZE, 7);
      assertThat(result.failure()).isNull();
      assertThat(result.received()).isEqualTo(SIZE);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isIn(CloseCause.CLIENT_EOF, CloseCause.UPSTREAM_EOF);
      assertThat(pair.client().bytesRead()).isEqualTo(SIZE);
      assertThat(pair.upstream().bytesRead()).isEqualTo(SIZE);
      assertThat(proxy.runtime().budget().used()).isZero();
      long spliced = spliced(loops) - before;
      if (mode.equals("auto") && proxy.runtime().group().transport() == Transport.EPOLL) {
        assertThat(spliced).as("bytes spliced").isGreaterThan(SIZE / 2);
      } else {
        assertThat(spliced).as("bytes spliced").isZero();
      }
    }
  }

  private static long spliced(List<EventLoop> loops) {
    long total = 0;
    for (EventLoop loop : loops) {
      total += loop.bytesSpliced();
    }
    return total;
  }
}
