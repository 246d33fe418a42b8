package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.Health;
import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload that rebuilds a cluster (any of its fields changed) carries each upstream's state over
 * to the new one: a down upstream stays down and gets no traffic, and the open pairs still count
 * for leastconn, and are released into the count new pairs are balanced by.
 */
class ReloadClusterStateTest {
  @TempDir Path dir;

  private static String yaml(String cluster, KillableEcho... upstreams) {
    StringBuilder list = new StringBuilder();
    for (KillableEcho u : upstreams) {
      list.append(list.isEmpty() ? "" : ", ").append("{address: \"" + u.address() + "\"}");
    }
    return """
        listeners:
          - {name: front, address: "127.0.0.1:0", cluster: c}
        clusters:
          - name: c
            upstreams: [%s]
        %s
        """
        .formatted(list, cluster);
  }

  private void reload(ProxyFixture proxy, String yaml) throws Exception {
    proxy.runtime().reload(ConfigReader.read(yaml, "test.yaml", dir));
  }

  @Test
  void aDownUpstreamStaysDownAcrossAReloadThatChangesItsCluster() throws Exception {
    try (KillableEcho a = KillableEcho.on("127.0.0.1");
        KillableEcho b = KillableEcho.on("127.0.0.1")) {
      String checked =
          "    healthCheck: {type: tcp, interval: 100ms, timeout: 100ms, rise: 2, fall: 2}\n"
              + "    passive: {failures: 0}";
      try (ProxyFixture proxy = ProxyFixture.start(yaml(checked, a, b), dir)) {
        b.kill();
        UpstreamTarget before = proxy.upstream("c", b.address());
        Await.until(
            () -> before.health().state(System.nanoTime()) == Health.State.DOWN,
            () -> "the check to take " + b.address() + " down");
        long failures = before.connectFailures();

        // Another balance and a slower check: a new cluster, whose own check would take 20 s to
        // find b down again.
        reload(
            proxy,
            yaml(
                "    balance: leastconn\n"
                    + "    healthCheck: {type: tcp, interval: 10s, timeout: 1s, rise: 2, fall: 2}\n"
                    + "    passive: {failures: 0}",
                a,
                b));
        Cluster rebuilt = proxy.runtime().clusters().get("c");
        assertThat(rebuilt.config().balance().name()).isEqualTo("LEASTCONN");
        UpstreamTarget after = proxy.upstream("c", b.address());
        assertThat(after).isNotSameAs(before);
        assertThat(after.health().state(System.nanoTime())).isEqualTo(Health.State.DOWN);
        for (int i = 0; i < 8; i++) {
          proxy.echoOnce("front", 'e').close();
        }
        assertThat(after.connectFailures()).as("b was not even tried").isEqualTo(failures);
        assertThat(proxy.upstream("c", a.address()).connects()).isEqualTo(8);
      }
    }
  }

  @Test
  void leastconnSeesThePairsOpenBeforeTheReloadAndTheyReleaseIntoTheSameCount() throws Exception {
    try (KillableEcho a = KillableEcho.on("127.0.0.1");
        KillableEcho b = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(yaml("    balance: leastconn", a), dir)) {
      List<Socket> held = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        held.add(proxy.echoOnce("front", 'e'));
      }
      reload(proxy, yaml("    balance: leastconn", a, b)); // b added: the cluster is rebuilt
      assertThat(proxy.upstream("c", a.address()).active())
          .as("a's open pairs, seen by the new cluster")
          .isEqualTo(5);
      for (int i = 0; i < 5; i++) {
        held.add(proxy.echoOnce("front", 'e'));
      }
      assertThat(b.accepted()).as("the new pairs go to the less loaded b").isEqualTo(5);
      assertThat(a.accepted()).isEqualTo(5);
      for (Socket s : held) {
        s.close();
      }
      Await.until(
          () ->
              proxy.upstream("c", a.address()).active() == 0
                  && proxy.upstream("c", b.address()).active() == 0,
          () ->
              "every pair released: a "
                  + proxy.upstream("c", a.address()).active()
                  + ", b "
                  + proxy.upstream("c", b.address()).active());
      assertThat(proxy.upstream("c", a.address()).connects())
          .as("counters carried over too")
          .isEqualTo(5);
    }
  }
}
