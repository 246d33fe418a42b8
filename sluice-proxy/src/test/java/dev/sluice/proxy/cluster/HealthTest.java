package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ClusterConfig.CheckType;
import dev.sluice.proxy.config.ClusterConfig.HealthCheck;
import dev.sluice.proxy.config.ClusterConfig.PassiveHealth;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The health state machine on a clock the test moves: rise and fall, ejection and its backoff. */
class HealthTest {
  private static final long S = 1_000_000_000L;
  private static final HealthCheck CHECK =
      new HealthCheck(
          CheckType.TCP, Duration.ofSeconds(1), Duration.ofMillis(500), 2, 3, null, null);
  private static final PassiveHealth PASSIVE =
      new PassiveHealth(3, Duration.ofSeconds(5), Duration.ofSeconds(20));

  @Test
  void fallFailuresTakeItDownAndRisePassesBringItBack() {
    Health h = new Health(CHECK, PASSIVE, 0);
    assertThat(h.available(0)).isTrue();
    assertThat(h.checkFailed(1 * S, "refused")).isFalse();
    assertThat(h.checkFailed(2 * S, "refused")).isFalse();
    assertThat(h.checkPassed(3 * S)).isFalse(); // a pass in between restarts the count
    assertThat(h.checkFailed(4 * S, "refused")).isFalse();
    assertThat(h.checkFailed(5 * S, "refused")).isFalse();
    assertThat(h.checkFailed(6 * S, "refused")).as("the third in a row").isTrue();
    assertThat(h.state(6 * S)).isEqualTo(Health.State.DOWN);
    assertThat(h.lastProblem()).isEqualTo("refused");
    assertThat(h.checkPassed(7 * S)).isFalse();
    assertThat(h.checkPassed(8 * S)).as("the second pass in a row").isTrue();
    assertThat(h.available(8 * S)).isTrue();
    assertThat(h.availableSinceNanos()).isEqualTo(8 * S);
  }

  @Test
  void passiveEjectionLastsItsBackoffWhichDoublesUpToTheMax() {
    Health h = new Health(null, PASSIVE, 0);
    assertThat(connectFailed(h, 1 * S, "refused")).isFalse();
    assertThat(connectFailed(h, 1 * S, "refused")).isFalse();
    assertThat(connectFailed(h, 1 * S, "refused")).isTrue();
    assertThat(h.available(5 * S)).isFalse();
    assertThat(h.available(6 * S)).as("without a check it comes back after 5 s").isTrue();
    for (int i = 0; i < 3; i++) {
      connectFailed(h, 6 * S, "refused");
    }
    assertThat(h.available(15 * S)).isFalse();
    assertThat(h.available(16 * S)).as("10 s the second time").isTrue();
    for (int i = 0; i < 3; i++) {
      connectFailed(h, 16 * S, "refused");
    }
    assertThat(h.available(35 * S)).isFalse();
    assertThat(h.available(36 * S)).as("20 s, the maximum").isTrue();
    for (int i = 0; i < 3; i++) {
      connectFailed(h, 36 * S, "refused");
    }
    assertThat(h.available(56 * S)).as("still 20 s").isTrue();
  }

  @Test
  void aSuccessfulConnectEndsTheRunOfFailuresAndResetsTheBackoff() {
    Health h = new Health(null, PASSIVE, 0);
    connectFailed(h, 0, "x");
    connectFailed(h, 0, "x");
    h.connectSucceeded();
    assertThat(connectFailed(h, 0, "x")).isFalse();
    assertThat(connectFailed(h, 0, "x")).isFalse();
    assertThat(connectFailed(h, 0, "x")).isTrue();
  }

  @Test
  void anEjectedUpstreamComesBackThroughTheCheckOnlyAfterItsBackoff() {
    Health h = new Health(CHECK, PASSIVE, 0);
    for (int i = 0; i < 3; i++) {
      connectFailed(h, 0, "reset");
    }
    assertThat(h.state(0)).isEqualTo(Health.State.EJECTED);
    assertThat(h.checkPassed(1 * S)).isFalse();
    assertThat(h.checkPassed(2 * S)).as("passes in the backoff do not count").isFalse();
    assertThat(h.available(6 * S))
        .as("with a check, the backoff alone does not bring it back")
        .isFalse();
    assertThat(h.checkPassed(6 * S)).isFalse();
    assertThat(h.checkPassed(7 * S)).isTrue();
    assertThat(h.available(7 * S)).isTrue();
  }

  @Test
  void slowStartRampsTheWeightOverItsWindow() {
    ClusterConfig config =
        new ClusterConfig(
            "c",
            java.util.List.of(
                new ClusterConfig.UpstreamConfig(
                    new dev.sluice.proxy.config.Endpoint.Tcp("127.0.0.1", 1), 10)),
            ClusterConfig.Balance.ROUNDROBIN,
            CHECK,
            PASSIVE,
            ClusterConfig.Retries.DEFAULTS,
            Duration.ofSeconds(10),
            Duration.ZERO,
            null);
    Cluster cluster = new Cluster(config);
    UpstreamTarget u = cluster.upstreams().getFirst();
    assertThat(u.effectiveWeight(System.nanoTime()))
        .as("up from the start: full weight")
        .isEqualTo(10);
    long t = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      u.health().checkFailed(t, "x");
    }
    u.health().checkPassed(t);
    u.health().checkPassed(t);
    assertThat(u.effectiveWeight(t)).isEqualTo(1.0); // a tenth at first
    assertThat(u.effectiveWeight(t + 5 * S)).isEqualTo(5.0);
    assertThat(u.effectiveWeight(t + 20 * S)).isEqualTo(10.0);
  }

  /** A failed connect its cluster could spare; whether it ejected the upstream. */
  private static boolean connectFailed(Health h, long nowNanos, String problem) {
    return h.failed(Health.Failure.CONNECT, nowNanos, problem, true) == Health.Verdict.EJECTED;
  }
}
