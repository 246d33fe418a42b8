package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.proxy.HttpArms;
import dev.sluice.bench.testing.BenchRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP proxy workloads, tiny, through the real harness: for every arm that can run here
 * (haproxy and nginx always, installed by .ci/run and by the arms themselves when missing; sluice
 * as soon as its proxy is built) the proxy process, the nginx upstream and the load (wrk, or the
 * httpidle JVM client), every response checked. Figures are not asserted: these are runs, not
 * benchmarks.
 */
class HttpWorkloadSmokeTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http --connections 4 --threads 1 --seconds 1 --warmup-seconds 1",
        "httpidle --connections 8 --parallel 4 --warmup-connections 2 --settle-ms 0"
      })
  @SuppressWarnings("unchecked")
  void everyHttpWorkloadRunsSmallWithEveryArmVerified(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "conditions");
    List<String> expected = HttpArms.available().stream().map(Impl::id).toList();
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactlyElementsOf(expected);
    boolean idle = command.startsWith("httpidle");
    arms.forEach(
        (id, arm) -> {
          Map<String, Object> fields = (Map<String, Object>) arm;
          assertThat(fields)
              .containsEntry("integrity", "OK")
              .containsKeys("model")
              .containsKeys(
                  idle
                      ? new String[] {"bytesPerConnection", "upstreamConnections"}
                      : new String[] {"requestsPerSec", "p99Us", "cpuUsPerRequest"});
          if (idle) {
            // Every parked connection was still open at the reading, in the kernel's own table.
            assertThat(((Number) fields.get("clientConnections")).doubleValue()).isEqualTo(8.0);
          } else {
            assertThat(((Number) fields.get("requests")).doubleValue()).isPositive();
          }
          if (!id.equals("sluice")) {
            assertThat((String) fields.get("version")).containsIgnoringCase(id + " version");
          }
        });
    assertThat(arms.get("nginx")).isNotNull();
    if (idle && arms.containsKey("sluice")) {
      assertThat((Map<String, Object>) arms.get("sluice"))
          .containsKeys("heapPerConnection", "vsHaproxy");
      assertThat((Map<String, Object>) arms.get("haproxy")).containsKey("poolPerConnection");
    }
  }

  /** A body one byte off, served by the upstream, fails the run in both workloads' checks. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "http --connections 2 --threads 1 --seconds 1 --warmup-seconds 0",
        "httpidle --connections 2 --parallel 2 --warmup-connections 1 --settle-ms 0"
      })
  void aWrongBodyFailsTheRun(String command) {
    BenchRun outcome = BenchRun.of((command + " --impl haproxy --corrupt-body").split(" "));
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr())
        .contains("INTEGRITY FAILURE")
        .containsAnyOf("responses were wrong", "that is not the upstream's");
  }
}
