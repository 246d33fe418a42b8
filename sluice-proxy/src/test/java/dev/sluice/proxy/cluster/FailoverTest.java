package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real upstreams failing on loopback: one is killed mid-run (its pairs end reset by the upstream,
 * new clients go to the others, the refused connects in between are retried elsewhere unseen, the
 * check marks it down), then brought back (up after its rise checks, slowly given its share).
 */
class FailoverTest {
  @TempDir Path dir;

  private static final String CHECKED =
      """
          balance: roundrobin
          healthCheck: {type: tcp, interval: 200ms, timeout: 200ms, rise: 2, fall: 2}
          slowStart: 2s
          passive: {failures: 3, backoff: 500ms}
      """;

  private static String yaml(String extra, KillableEcho... upstreams) {
    StringBuilder list = new StringBuilder();
    for (KillableEcho u : upstreams) {
      list.append("{address: \"").append(u.address()).append("\"}, ");
    }
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: c
        clusters:
          - name: c
            upstreams: [%s]
        %s
        """
        .formatted(list.substring(0, list.length() - 2), extra);
  }

  @Test
  void aKilledUpstreamIsLeftAndABroughtBackOneRejoins() throws Exception {
    try (KillableEcho a = KillableEcho.on("127.0.0.1");
        KillableEcho b = KillableEcho.on("127.0.0.1");
        KillableEcho c = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(yaml(CHECKED, a, b, c), dir)) {
      List<Socket> held = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        held.add(proxy.echoOnce("front", 'p'));
      }
      // Counted by the proxy: the health checks connect too, and are not pairs.
      assertThat(
              List.of(
                  proxy.upstream("c", a.address()),
                  proxy.upstream("c", b.address()),
                  proxy.upstream("c", c.address())))
          .extracting(UpstreamTarget::connects)
          .containsOnly(3L);

      long killedAt = System.nanoTime();
      b.kill();
      // Its three pairs end at once, reset by the upstream.
      int reset = 0;
      for (Socket s : held) {
        try {
          s.getOutputStream().write('q');
          int read = s.getInputStream().read();
          if (read == 'q') {
            continue;
          }
        } catch (SocketException expected) {
          // reset
        }
        reset++;
      }
      assertThat(reset).isEqualTo(3);
      assertThat(proxy.awaitClosed(3))
          .extracting(Pair::cause)
          .containsOnly(CloseCause.UPSTREAM_RESET);

      // New clients meanwhile: a connect refused by b is retried elsewhere, unseen by the client.
      for (int i = 0; i < 12; i++) {
        proxy.echoOnce("front", 'p').close();
      }
      UpstreamTarget bTarget = proxy.upstream("c", b.address());
      // Out by passive ejection (its pairs' resets) or by the check, whichever comes first.
      Await.until(
          () -> !bTarget.health().available(System.nanoTime()),
          () -> "the check to mark " + b.address() + " down");
      long downAfterMs = (System.nanoTime() - killedAt) / 1_000_000;
      long bConnects = bTarget.connects();
      long bFailures = bTarget.connectFailures();
      for (int i = 0; i < 20; i++) {
        proxy.echoOnce("front", 'p').close();
      }
      assertThat(bTarget.connects()).as("none to b while it is down").isEqualTo(bConnects);
      assertThat(bTarget.connectFailures()).as("nor tried").isEqualTo(bFailures);

      b.start();
      Await.until(
          () -> bTarget.health().available(System.nanoTime()),
          () -> "the check to bring " + b.address() + " back");
      assertThat(bTarget.effectiveWeight(System.nanoTime()))
          .as("slow start: not its whole share yet")
          .isLessThan(1.0);
      int bBefore = b.accepted();
      for (int i = 0; i < 30; i++) {
        proxy.echoOnce("front", 'p').close();
      }
      assertThat(b.accepted() - bBefore)
          .as("b takes connections again, a few at first")
          .isBetween(1, 9);
      for (Socket s : held) {
        s.close();
      }
      System.out.println("FailoverTest: marked down " + downAfterMs + " ms after the kill");
    }
  }

  @Test
  void aRefusedConnectIsRetriedOnAnotherUpstreamWithNoClientVisibleError() throws Exception {
    try (KillableEcho dead = KillableEcho.on("127.0.0.1");
        KillableEcho live = KillableEcho.on("127.0.0.1")) {
      try (ProxyFixture proxy =
          ProxyFixture.start(yaml("    passive: {failures: 0}", dead, live), dir)) {
        // Killed once the proxy is bound: its listener, on an ephemeral port, cannot be given the
        // dead upstream's port (the proxy would then connect to itself).
        dead.kill();
        for (int i = 0; i < 20; i++) {
          proxy.echoOnce("front", 'p').close();
        }
        assertThat(proxy.upstream("c", live.address()).connects()).isEqualTo(20);
        assertThat(proxy.upstream("c", dead.address()).connectFailures()).isGreaterThanOrEqualTo(9);
        assertThat(proxy.awaitClosed(20))
            .extracting(Pair::cause)
            .doesNotContain(CloseCause.CONNECT_REFUSED);
      }
    }
  }

  @Test
  void withNoHealthyUpstreamAClientIsClosedAtOnce() throws Exception {
    try (KillableEcho dead = KillableEcho.on("127.0.0.1")) {
      dead.kill();
      try (ProxyFixture proxy = ProxyFixture.start(yaml(CHECKED, dead), dir)) {
        UpstreamTarget target = proxy.upstream("c", dead.address());
        Await.until(
            () -> !target.health().available(System.nanoTime()), () -> "the check to mark it down");
        InetSocketAddress address = (InetSocketAddress) proxy.address("front");
        try (Socket s = new Socket(address.getAddress(), address.getPort())) {
          s.setSoTimeout((int) Await.PATIENCE.toMillis());
          assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        Pair pair = proxy.awaitClosed(1).getFirst();
        assertThat(pair.cause()).isEqualTo(CloseCause.NO_HEALTHY_UPSTREAM);
        assertThat(target.connectFailures()).as("no connect was even tried").isZero();
      }
    }
  }

  @Test
  void passiveEjectionTakesAFailingUpstreamOutWithoutAnyCheck() throws Exception {
    try (KillableEcho dead = KillableEcho.on("127.0.0.1");
        KillableEcho live = KillableEcho.on("127.0.0.1")) {
      dead.kill();
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml("    passive: {failures: 2, backoff: 1h, maxBackoff: 1h}", dead, live), dir)) {
        for (int i = 0; i < 10; i++) {
          proxy.echoOnce("front", 'p').close();
        }
        UpstreamTarget target = proxy.upstream("c", dead.address());
        assertThat(target.health().state(System.nanoTime())).isEqualTo(Health.State.EJECTED);
        assertThat(target.ejections()).isEqualTo(1);
        assertThat(target.connectFailures()).as("two failures, then left alone").isEqualTo(2);
      }
    }
  }
}
