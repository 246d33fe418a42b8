package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ClusterConfig.Balance;
import dev.sluice.proxy.config.ClusterConfig.UpstreamConfig;
import dev.sluice.proxy.config.Endpoint;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every balancer spreads picks by weight, and stays fair when every loop picks at once; the
 * consistent hash keeps clients put and moves about 1/N of them when an upstream is added. No
 * sockets: a balancer is a function of the upstreams and their counters.
 */
class BalancerTest {
  private static final int PICKS = 10_000;

  private static Cluster cluster(Balance balance, int... weights) {
    List<UpstreamConfig> upstreams = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      upstreams.add(new UpstreamConfig(new Endpoint.Tcp("127.0.0." + (i + 1), 7000), weights[i]));
    }
    ClusterConfig config = ClusterConfig.of("c", upstreams);
    return new Cluster(
        new ClusterConfig(
            config.name(),
            config.upstreams(),
            balance,
            null,
            config.passive(),
            config.retries(),
            config.slowStart(),
            config.resolveInterval(),
            null));
  }

  private static Map<String, Integer> spread(Cluster cluster, int picks) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < picks; i++) {
      UpstreamTarget u = ((Cluster.Chosen) cluster.choose(null, List.of())).upstream();
      counts.merge(u.name(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void roundRobinGivesEachItsExactShareInterleaved() {
    Cluster c = cluster(Balance.ROUNDROBIN, 5, 1, 1);
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      first.add(((Cluster.Chosen) c.choose(null, List.of())).upstream().name());
    }
    assertThat(first)
        .containsExactly(
            "127.0.0.1:7000",
            "127.0.0.1:7000",
            "127.0.0.2:7000",
            "127.0.0.1:7000",
            "127.0.0.3:7000",
            "127.0.0.1:7000",
            "127.0.0.1:7000");
    Map<String, Integer> counts = spread(c, 7 * 1000);
    assertThat(counts).containsEntry("127.0.0.1:7000", 5000).containsEntry("127.0.0.2:7000", 1000);
  }

  @ParameterizedTest
  @EnumSource(
      value = Balance.class,
      names = {"ROUNDROBIN", "P2C", "LEASTCONN"})
  void picksFollowTheWeights(Balance balance) {
    Cluster c = cluster(balance, 1, 2, 3);
    Map<String, Integer> counts = new HashMap<>();
    List<UpstreamTarget> open = new ArrayList<>();
    for (int i = 0; i < PICKS; i++) {
      UpstreamTarget u = ((Cluster.Chosen) c.choose(null, List.of())).upstream();
      counts.merge(u.name(), 1, Integer::sum);
      u.connected(); // load the counters as real pairs would, so least-connections spreads
      open.add(u);
      if (open.size() > 60) {
        open.removeFirst().released(dev.sluice.proxy.forward.CloseCause.CLIENT_EOF, false);
      }
    }
    double total = PICKS;
    assertThat(counts.get("127.0.0.1:7000") / total).isBetween(1 / 6.0 - 0.03, 1 / 6.0 + 0.03);
    assertThat(counts.get("127.0.0.2:7000") / total).isBetween(2 / 6.0 - 0.03, 2 / 6.0 + 0.03);
    assertThat(counts.get("127.0.0.3:7000") / total).isBetween(3 / 6.0 - 0.03, 3 / 6.0 + 0.03);
  }

  @Test
  void roundRobinStaysExactWhenFourThreadsPickAtOnce() throws Exception {
    Cluster c = cluster(Balance.ROUNDROBIN, 1, 1, 2);
    Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < 2500; i++) {
                      UpstreamTarget u = ((Cluster.Chosen) c.choose(null, List.of())).upstream();
                      counts.computeIfAbsent(u.name(), k -> new AtomicLong()).incrementAndGet();
                    }
                  }));
    }
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(counts.get("127.0.0.1:7000")).hasValue(2500);
    assertThat(counts.get("127.0.0.2:7000")).hasValue(2500);
    assertThat(counts.get("127.0.0.3:7000")).hasValue(5000);
  }

  @Test
  void leastConnectionsPrefersTheLeastLoaded() {
    Cluster c = cluster(Balance.LEASTCONN, 1, 1, 1);
    List<UpstreamTarget> all = c.upstreams();
    for (int i = 0; i < 5; i++) {
      all.get(0).connected();
      all.get(1).connected();
    }
    for (int i = 0; i < 4; i++) {
      UpstreamTarget u = ((Cluster.Chosen) c.choose(null, List.of())).upstream();
      assertThat(u).isSameAs(all.get(2));
      u.connected();
    }
  }

  @Test
  void theHashKeepsAClientOnItsUpstreamAndMovesAboutOneInNWhenOneIsAdded() {
    Cluster four = cluster(Balance.HASH, 1, 1, 1, 1);
    Cluster five = cluster(Balance.HASH, 1, 1, 1, 1, 1);
    int moved = 0;
    Map<String, Integer> spread = new HashMap<>();
    for (int client = 0; client < PICKS; client++) {
      var pair = pairFrom("10.1." + (client / 250) + "." + (client % 250));
      String before = ((Cluster.Chosen) four.choose(pair, List.of())).upstream().name();
      assertThat(((Cluster.Chosen) four.choose(pair, List.of())).upstream().name())
          .isEqualTo(before);
      String after = ((Cluster.Chosen) five.choose(pair, List.of())).upstream().name();
      spread.merge(before, 1, Integer::sum);
      if (!after.equals(before)) {
        moved++;
        assertThat(after).as("a moved client goes to the new upstream").isEqualTo("127.0.0.5:7000");
      }
    }
    assertThat(moved / (double) PICKS).isBetween(0.12, 0.28); // ideally 1/5
    for (int count : spread.values()) {
      assertThat(count / (double) PICKS).isBetween(0.18, 0.32); // ideally 1/4 each
    }
  }

  @Test
  void anUpstreamAlreadyTriedIsNotPickedAgainAndNoneLeftSaysSo() {
    Cluster c = cluster(Balance.ROUNDROBIN, 1, 1);
    List<UpstreamTarget> all = c.upstreams();
    assertThat(((Cluster.Chosen) c.choose(null, List.of(all.get(0)))).upstream())
        .isSameAs(all.get(1));
    assertThat(c.choose(null, all)).isInstanceOf(Cluster.NoneAvailable.class);
  }

  private static dev.sluice.proxy.forward.Pair pairFrom(String ip) {
    dev.sluice.proxy.forward.Pair pair = new dev.sluice.proxy.forward.Pair(null);
    pair.facts().clientAddress(new InetSocketAddress(ip, 40000));
    return pair;
  }
}
