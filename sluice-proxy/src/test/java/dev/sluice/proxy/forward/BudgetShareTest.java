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
 * Clients that stop reading cannot take the proxy-wide budget from everyone else: a pair holds at
 * most 1/16 of it, and while two listeners share it neither holds more than half.
 */
class BudgetShareTest {
  @TempDir Path dir;

  private static final int STALLED = 6;

  private static final int BUDGET = 64 * 1024;

  private static ProxyFixture proxy(EchoServer echo, Path dir) throws Exception {
    return ProxyFixture.start(
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
        dir);
  }

  /** A client that sends 8 MiB and reads none of its echo: the proxy holds what it can of it. */
  private static Socket stall(SocketAddress address) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(address);
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                s.getOutputStream().write(new PayloadPattern(1).bytes(0, 8 << 20));
              } catch (IOException closedAtTheEnd) {
                // the test closes it
              }
            });
    return s;
  }

  @Test
  void clientsThatReadNothingLeaveRoomForOthersOnTheirListenerAndOnAnother() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = proxy(echo, dir)) {
      List<Socket> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < STALLED; i++) {
          stalled.add(stall(proxy.address("a")));
        }
        Await.until(
            () -> stalledPairs(proxy) == STALLED || proxy.runtime().budget().used() >= BUDGET,
            () -> stalledPairs(proxy) + " pairs stalled, " + proxy.runtime().budget());
        long held = proxy.runtime().budget().used();
        assertThat(held)
            .as("held for %d stalled pairs", STALLED)
            .isLessThanOrEqualTo(STALLED * (BUDGET / 16));

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

  @Test
  void manyStalledClientsOnOneListenerTakeAtMostHalfOfTheBudget() throws Exception {
    int many = 96; // enough to hold the whole budget, were it not shared
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyFixture proxy = proxy(echo, dir)) {
      List<Socket> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < many; i++) {
          stalled.add(stall(proxy.address("a")));
        }
        InFlightBudget.Share a = proxy.listener("a").budget();
        int read = BUDGET / 32; // what each leg reads at most
        Await.until( // what each holds varies with the sockets' buffers: wait for half the share
            () -> a.used() >= a.limit() / 2 || proxy.runtime().budget().used() >= BUDGET,
            () -> "listener a holds " + a + ", the proxy " + proxy.runtime().budget().used());
        // A read under way may pass the bound by itself: one 2 KiB read per loop (two loops).
        assertThat(proxy.runtime().budget().used()).isLessThan(BUDGET);
        assertThat(a.used()).isLessThanOrEqualTo(a.limit() + 2 * read);
        assertThat(echoes(proxy.address("b"))).as("echoes through listener b").isEqualTo(10);
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

  @Test
  void aReloadThatFailsToBindANewListenerLeavesTheShareAsItWas() throws Exception {
    String yaml =
        """
        listeners:
          - {name: a, address: "127.0.0.1:0", cluster: echo}
        %s
        buffers: {maxBytesInFlight: 64KiB}
        clusters:
          - {name: echo, upstreams: [{address: "127.0.0.1:9"}]}
        """;
    try (java.net.ServerSocket taken =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        ProxyFixture proxy = ProxyFixture.start(yaml.formatted(""), dir)) {
      InFlightBudget.Share a = proxy.listener("a").budget();
      assertThat(a.limit()).isEqualTo(BUDGET);
      String withB =
          yaml.formatted(
              "  - {name: b, address: \"127.0.0.1:%d\", cluster: echo}"
                  .formatted(taken.getLocalPort()));
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  proxy
                      .runtime()
                      .reload(dev.sluice.proxy.config.ConfigReader.read(withB, "test.yaml", dir)))
          .hasMessageContaining("listeners.b.address");
      assertThat(a.limit())
          .as("the only listener's share after the failed reload")
          .isEqualTo(BUDGET);
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
