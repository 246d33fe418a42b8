package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ClusterConfig.PassiveHealth;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.CloseCause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which failures passive ejection counts (connect failures, and resets before any byte moved), and
 * how much of a cluster it may take out: never the last available upstream, never more than its
 * share. Without sockets: the targets' failures are reported as a pair would report them.
 */
class EjectionLimitTest {

  private static Cluster cluster(int upstreams, int maxEjectedPercent) {
    List<ClusterConfig.UpstreamConfig> list = new ArrayList<>();
    for (int i = 0; i < upstreams; i++) {
      list.add(new ClusterConfig.UpstreamConfig(new Endpoint.Tcp("127.0.0." + (i + 1), 7000), 1));
    }
    ClusterConfig defaults = ClusterConfig.of("c", list);
    return new Cluster(
        new ClusterConfig(
            "c",
            list,
            ClusterConfig.Balance.ROUNDROBIN,
            null,
            new PassiveHealth(3, Duration.ofHours(1), Duration.ofHours(1), maxEjectedPercent),
            defaults.retries(),
            Duration.ZERO,
            Duration.ZERO,
            null));
  }

  private static void refuse(UpstreamTarget u, int times) {
    for (int i = 0; i < times; i++) {
      u.connectFailed(CloseCause.CONNECT_REFUSED, "refused");
    }
  }

  private static long available(Cluster c) {
    long now = System.nanoTime();
    return c.upstreams().stream().filter(u -> u.available(now)).count();
  }

  @Test
  void theShareKeptInServiceIsRoundedUpAndNeverBelowOne() {
    record Case(int upstreams, int percent, int kept) {}
    for (Case c :
        List.of(
            new Case(1, 50, 1),
            new Case(2, 50, 1),
            new Case(3, 50, 2),
            new Case(4, 50, 2),
            new Case(10, 50, 5),
            new Case(10, 10, 9),
            new Case(3, 10, 3),
            new Case(1, 100, 1),
            new Case(5, 100, 1),
            new Case(5, 0, 5))) {
      assertThat(
              new PassiveHealth(3, Duration.ofSeconds(1), Duration.ofSeconds(1), c.percent())
                  .minInService(c.upstreams()))
          .as("%s", c)
          .isEqualTo(c.kept());
    }
    assertThat(PassiveHealth.DEFAULTS.maxEjectedPercent()).isEqualTo(50);
  }

  @Test
  void theOnlyUpstreamIsNeverEjected() {
    Cluster c = cluster(1, 100);
    UpstreamTarget only = c.upstreams().getFirst();
    refuse(only, 30);
    assertThat(only.ejections()).isZero();
    assertThat(only.health().state(System.nanoTime())).isEqualTo(Health.State.UP);
    assertThat(only.health().lastProblem()).contains("connect_refused");
  }

  @Test
  void ofTwoOneMayBeEjectedAndTheOtherStays() {
    Cluster c = cluster(2, 50);
    UpstreamTarget a = c.upstreams().get(0);
    UpstreamTarget b = c.upstreams().get(1);
    refuse(a, 3);
    assertThat(a.health().state(System.nanoTime())).isEqualTo(Health.State.EJECTED);
    refuse(b, 10);
    assertThat(b.ejections()).as("the last one in service").isZero();
    assertThat(available(c)).isEqualTo(1);
  }

  @Test
  void aKeptUpstreamIsEjectedAtItsNextFailureOnceTheClusterCanSpareIt() {
    Health h =
        new Health(null, new PassiveHealth(3, Duration.ofSeconds(5), Duration.ofSeconds(5)), 0);
    Health.Failure connect = Health.Failure.CONNECT;
    assertThat(h.failed(connect, 0, "x", false)).isEqualTo(Health.Verdict.COUNTED);
    assertThat(h.failed(connect, 0, "x", false)).isEqualTo(Health.Verdict.COUNTED);
    assertThat(h.failed(connect, 0, "x", false)).isEqualTo(Health.Verdict.KEPT);
    assertThat(h.failed(connect, 0, "x", false)).isEqualTo(Health.Verdict.KEPT);
    assertThat(h.available(0)).isTrue();
    assertThat(h.failed(connect, 0, "x", true)).isEqualTo(Health.Verdict.EJECTED);
    assertThat(h.available(0)).isFalse();
  }

  @Test
  void resetsBeforeAnyByteHaveTheirOwnRunWhichASuccessfulConnectDoesNotEnd() {
    Health h =
        new Health(null, new PassiveHealth(3, Duration.ofSeconds(5), Duration.ofSeconds(5)), 0);
    Health.Failure reset = Health.Failure.RESET_BEFORE_ANY_BYTE;
    h.connectSucceeded();
    assertThat(h.failed(reset, 0, "x", true)).isEqualTo(Health.Verdict.COUNTED);
    h.connectSucceeded();
    assertThat(h.failed(reset, 0, "x", true)).isEqualTo(Health.Verdict.COUNTED);
    h.connectionServed(); // a connection that moved bytes ends the run
    h.connectSucceeded();
    assertThat(h.failed(reset, 0, "x", true)).isEqualTo(Health.Verdict.COUNTED);
    h.connectSucceeded();
    assertThat(h.failed(reset, 0, "x", true)).isEqualTo(Health.Verdict.COUNTED);
    h.connectSucceeded();
    assertThat(h.failed(reset, 0, "x", true)).isEqualTo(Health.Verdict.EJECTED);
  }

  @Test
  void atMostTheConfiguredShareOfALargerClusterIsEjected() {
    Cluster half = cluster(4, 50);
    half.upstreams().forEach(u -> refuse(u, 5));
    assertThat(available(half)).isEqualTo(2);
    Cluster quarter = cluster(4, 25);
    quarter.upstreams().forEach(u -> refuse(u, 5));
    assertThat(available(quarter)).isEqualTo(3);
  }

  @Test
  void aResetCountsOnlyWhenNoByteHadMovedEitherWay() {
    Cluster c = cluster(2, 50);
    UpstreamTarget a = c.upstreams().get(0);
    for (int i = 0; i < 10; i++) {
      a.connected();
      a.released(CloseCause.UPSTREAM_RESET, false); // after the client's request, or a reply
    }
    assertThat(a.ejections()).as("resets a client could provoke").isZero();
    for (int i = 0; i < 3; i++) {
      a.connected();
      a.released(CloseCause.UPSTREAM_RESET, true);
    }
    assertThat(a.ejections()).as("resets before any byte").isEqualTo(1);
    assertThat(a.active()).isZero();
  }
}
