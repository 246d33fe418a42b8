package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A few clients that stop reading cannot take the proxy-wide budget from everyone else: a pair
 * holds at most 1/16 of it, and while two listeners share it neither holds more than half.
 */
class BudgetShareTest {
  @TempDir Path dir;

  private static final int STALLED = 6;

  @Test
  void clientsThatReadNothingLeaveRoomForOthersOnTheirListenerAndOnAnother() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - {name: a, address: "127.0.0.1:0", cluster: echo}
                  - {name: b, address: "127.0.0.1:0", cluster: echo}
                buffers: {maxBytesInFlight: 64KiB}
                clusters:
                  - name: echo
                    upstreams: [{address: "127.0.0.1:%d"}]
                """
                    .formatted(((InetSocketAddress) echo.address()).getPort()),
                dir)) {
      List<Socket> stalled = new ArrayList<>();
      try {
        // Each sends 8 MiB and reads none of its echo: the proxy is left holding what it can.
        for (int i = 0; i < STALLED; i++) {
          Socket s = new Socket();
          s.setReceiveBufferSize(4096);
          s.connect(proxy.address("a"));
          stalled.add(s);
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      s.getOutputStream().write(new PayloadPattern(1).bytes(0, 8 << 20));
                    } catch (IOException closedAtTheEnd) {
                      // the test closes it
                    }
                  });
        }
        Await.until(
            () -> stalledPairs(proxy) == STALLED || proxy.runtime().budget().used() >= 64 * 1024,
            () -> stalledPairs(proxy) + " pairs stalled, " + proxy.runtime().budget());
        long held = proxy.runtime().budget().used();
        assertThat(held)
            .as("held for %d stalled pairs", STALLED)
            .isLessThanOrEqualTo(STALLED * (64 * 1024 / 16));

        // Another client on the same listener, and one on the other, are served in full.
        assertThat(echoes(proxy.address("a"))).isEqualTo(10);
        assertThat(echoes(proxy.address("b"))).isEqualTo(10);
      } finally {
        for (Socket s : stalled) {
          s.close();
        }
      }
      Await.until(
          () -> proxy.runtime().budget().used() == 0,
          () -> proxy.runtime().budget().used() + " B still held");
    }
  }

  /** Pairs whose client has bytes of its echo pending at the proxy. */
  private static int stalledPairs(ProxyFixture proxy) {
    AtomicInteger n = new AtomicInteger();
    proxy
        .runtime()
        .forEachPair(
            pair -> {
              if (pair.upstream().pendingAtPeer() > 0) {
                n.incrementAndGet();
              }
            });
    return n.get();
  }

  /** Sends ten 1 KiB messages, each after the last one's echo; returns how many came back. */
  private static int echoes(SocketAddress address) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(address);
      s.setSoTimeout(10_000);
      int ok = 0;
      for (int i = 0; i < 10; i++) {
        byte[] message = new PayloadPattern(100 + i).bytes(0, 1024);
        s.getOutputStream().write(message);
        if (Arrays.equals(s.getInputStream().readNBytes(message.length), message)) {
          ok++;
        }
      }
      return ok;
    }
  }
}
