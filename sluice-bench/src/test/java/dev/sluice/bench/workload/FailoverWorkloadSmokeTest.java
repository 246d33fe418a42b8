package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.testing.BenchRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The failover workload, short, through the real harness with every health-checking arm that can
 * run here (haproxy always, sluice once its proxy is built): two upstreams so that a fair share of
 * the clients is on the one killed, a timeline of three seconds, checks every 200 ms so that the
 * restored upstream is back (rise 2) well before the end. Figures are not asserted, only that they
 * are there, add up and that the kill was seen.
 */
class FailoverWorkloadSmokeTest {
  private static final String[] SHORT = {
    "failover",
    "--upstreams",
    "2",
    "--clients",
    "16",
    "--warmup-ms",
    "300",
    "--kill-at-ms",
    "1000",
    "--restore-at-ms",
    "2000",
    "--duration-ms",
    "3000",
    "--check-interval-ms",
    "200"
  };

  @Test
  @SuppressWarnings("unchecked")
  void bothArmsSeeTheKillEjectAndRestoreWithEveryByteVerified() {
    BenchRun outcome = BenchRun.of(SHORT);
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK");
    List<String> expected =
        ProxyArms.available().stream()
            .filter(i -> i != Impl.NETTY && i != Impl.NETTY_EPOLL)
            .map(Impl::id)
            .toList();
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactlyElementsOf(expected).contains("haproxy");
    Map<String, Object> conditions = (Map<String, Object>) json.get("conditions");
    assertThat((String) conditions.get("netty")).startsWith("not an arm of failover");
    assertThat((String) conditions.get("netty-epoll")).startsWith("not an arm of failover");
    arms.forEach(
        (id, arm) -> {
          Map<String, Object> f = (Map<String, Object>) arm;
          assertThat(f)
              .as(id)
              .containsEntry("integrity", "OK")
              .containsKeys(
                  "model",
                  "ejectMs",
                  "restoreMs",
                  "proxyRestoreMs",
                  "lastFailureMs",
                  "p50BeforeUs",
                  "p99BeforeUs",
                  "p99DuringUs",
                  "p99AfterUs",
                  "outageMs",
                  "dyingMs");
          double failed = number(f, "requestsFailed");
          assertThat(failed).as(id + ": the killed upstream's pairs break").isGreaterThan(0);
          assertThat(number(f, "failedMidConnection") + number(f, "failedBeforeResponse"))
              .as(id)
              .isEqualTo(failed - number(f, "failedConnect"));
          assertThat(number(f, "failedNewAfterKill"))
              .as(id)
              .isLessThanOrEqualTo(number(f, "failedBeforeResponse"));
          assertThat(number(f, "requestsOk")).as(id).isGreaterThan(0);
          assertThat(number(f, "ejectMs")).as(id).isGreaterThanOrEqualTo(0);
          assertThat(number(f, "restoreMs")).as(id).isGreaterThanOrEqualTo(0);
          assertThat(number(f, "outageMs")).as(id).isGreaterThan(0);
        });
  }

  @Test
  void aCorruptedByteFailsTheRun() {
    String[] args = new String[SHORT.length + 4];
    System.arraycopy(SHORT, 0, args, 0, SHORT.length);
    System.arraycopy(
        new String[] {"--impl", "haproxy", "--corrupt-at", "30"}, 0, args, SHORT.length, 4);
    BenchRun outcome = BenchRun.of(args);
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE", "wrong byte at stream offset 30");
  }

  @Test
  void theNettyArmIsRefused() {
    BenchRun outcome = BenchRun.of("failover", "--impl", "netty");
    assertThat(outcome.status()).isNotEqualTo(Main.OK);
    assertThat(outcome.stderr()).contains("failover has no arm netty");
  }

  private static double number(Map<String, Object> fields, String name) {
    Object value = fields.get(name);
    assertThat(value).as(name).isInstanceOf(Number.class);
    return ((Number) value).doubleValue();
  }
}
