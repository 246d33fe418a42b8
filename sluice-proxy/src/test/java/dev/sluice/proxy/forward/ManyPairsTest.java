package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.MemoryStats;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.PayloadPattern;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 4,000 pairs open at once, each having carried a burst both ways and then parked: every byte comes
 * back, and while they are parked the proxy holds no buffer for any of them (no copy, no handed-off
 * slab, nothing pending) — only its loops' own slabs.
 */
class ManyPairsTest {
  private static final int PAIRS = 4000;
  private static final int BURST = 2048;

  @TempDir Path dir;

  @Test
  void fourThousandParkedPairsHoldNoBuffer() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                clusters:
                  - name: echo
                    upstreams: [{address: "127.0.0.1:%d"}]
                """
                    .formatted(((InetSocketAddress) echo.address()).getPort()),
                dir)) {
      InetSocketAddress address = (InetSocketAddress) proxy.address("front");
      List<Socket> clients = new ArrayList<>();
      try {
        for (int i = 0; i < PAIRS; i++) {
          Socket client = new Socket(address.getAddress(), address.getPort());
          client.setSoTimeout((int) Await.PATIENCE.toMillis());
          clients.add(client);
          byte[] burst = new PayloadPattern(i).bytes(0, BURST);
          OutputStream out = client.getOutputStream();
          out.write(burst);
          InputStream in = client.getInputStream();
          assertThat(in.readNBytes(BURST)).as("pair %d's echo", i).isEqualTo(burst);
        }
        assertThat(proxy.listener("front").stats().openCount()).isEqualTo(PAIRS);
        assertThat(echo.open()).isEqualTo(PAIRS);
        MemoryStats stats = proxy.runtime().group().memoryStats();
        assertThat(stats.pendingWriteBytes()).isZero();
        assertThat(stats.pendingCopyBytes()).isZero();
        assertThat(stats.handedOffChunks()).isZero();
        assertThat(stats.slabBytesReserved())
            .as("only the loops' own slabs, whatever the number of pairs")
            .isLessThanOrEqualTo(2L * 64 * 1024);
        assertThat(proxy.runtime().budget().used()).isZero();
      } finally {
        for (Socket client : clients) {
          client.close();
        }
      }
      proxy.awaitClosed(PAIRS);
      Await.until(() -> echo.open() == 0, () -> echo.open() + " upstream connections still open");
    }
  }
}
