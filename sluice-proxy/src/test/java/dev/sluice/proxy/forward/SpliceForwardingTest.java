package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.EventLoop;
import dev.sluice.net.Transport;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoClient.Security;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
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

  /**
   * The client sends a stream and closes at once; the upstream reads nothing until the proxy holds
   * a copy for it, then reads slowly, so splices to it stall and what it cannot take is copied out,
   * charged to the budget, while the client's side waits. Every byte still arrives, in order, then
   * the upstream's EOF; the budget ends empty.
   */
  @ParameterizedTest(name = "splice: {0}")
  @ValueSource(strings = {"auto", "off"})
  void aSlowUpstreamGetsEveryByteOfAClientThatClosedAtOnce(String mode) throws Exception {
    long size = 16L << 20;
    try (ServerSocket upstream = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                splice: %s
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: slow
                clusters:
                  - name: slow
                    upstreams: [{address: "127.0.0.1:%d"}]
                """
                    .formatted(mode, upstream.getLocalPort()),
                dir)) {
      List<EventLoop> loops = proxy.runtime().group().loops();
      long copiedBefore = copiedOut(loops);
      proxy.runtime().budget().resetPeak();
      CompletableFuture<long[]> received = new CompletableFuture<>();
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                try (Socket s = upstream.accept();
                    InputStream in = s.getInputStream()) {
                  // Nothing is read until the proxy holds a copy for this upstream: on a loaded
                  // machine a merely slow reader may still outpace the proxy, and loopback's
                  // buffers would take the whole stream.
                  Await.until(
                      () -> proxy.runtime().budget().used() > 0, () -> "no copy was ever held");
                  CRC32 crc = new CRC32();
                  byte[] buf = new byte[4096];
                  long total = 0;
                  int n;
                  while ((n = in.read(buf)) >= 0) {
                    crc.update(buf, 0, n);
                    total += n;
                    if (total % (512 * 1024) < n) {
                      Thread.sleep(5); // a slow reader: the proxy's writes to it back up
                    }
                  }
                  received.complete(new long[] {total, crc.getValue()});
                } catch (Throwable t) {
                  received.completeExceptionally(t);
                }
              });
      CRC32 sent = new CRC32();
      InetSocketAddress front = (InetSocketAddress) proxy.address("front");
      try (Socket client = new Socket(front.getAddress(), front.getPort());
          OutputStream out = client.getOutputStream()) {
        Random random = new Random(11);
        byte[] buf = new byte[1 << 20];
        for (long at = 0; at < size; at += buf.length) {
          random.nextBytes(buf);
          sent.update(buf);
          out.write(buf);
        }
      } // closed at once, its last bytes still on their way
      long[] got = Await.result(received, "the upstream's bytes and EOF");
      assertThat(got[0]).isEqualTo(size);
      assertThat(got[1]).isEqualTo(sent.getValue());
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.client().bytesRead()).isEqualTo(size);
      assertThat(proxy.runtime().budget().used()).isZero();
      assertThat(proxy.runtime().budget().peak())
          .as("copies held for the slow upstream")
          .isPositive();
      if (mode.equals("auto") && proxy.runtime().group().transport() == Transport.EPOLL) {
        assertThat(copiedOut(loops) - copiedBefore).as("bytes copied out of pipes").isPositive();
      } else {
        assertThat(copiedOut(loops) - copiedBefore).isZero();
      }
    }
  }

  private static long copiedOut(List<EventLoop> loops) {
    long total = 0;
    for (EventLoop loop : loops) {
      total += loop.bytesCopiedOutOfPipes();
    }
    return total;
  }

  private static long spliced(List<EventLoop> loops) {
    long total = 0;
    for (EventLoop loop : loops) {
      total += loop.bytesSpliced();
    }
    return total;
  }
}
