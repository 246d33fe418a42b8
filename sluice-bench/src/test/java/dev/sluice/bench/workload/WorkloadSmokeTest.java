package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.testing.BenchRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every workload, tiny, through the real harness: forked peer and measured JVMs for both
 * implementations, the JSON contract of the last line, and integrity. Figures are not asserted:
 * these are runs, not benchmarks.
 */
class WorkloadSmokeTest {

  private static BenchRun bench(String... args) {
    return BenchRun.of(args);
  }

  @Test
  @SuppressWarnings("unchecked")
  void tinyRetentionRunsBothArmsInSeparateJvmsWithIntegrityOk() {
    BenchRun outcome = bench("retention", "--chunks", "300", "--warmup-chunks", "50");
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("workload", "retention").containsEntry("integrity", "OK");
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    for (String impl : List.of("sluice", "netty", "netty-epoll")) {
      Map<String, Object> arm = (Map<String, Object>) arms.get(impl);
      assertThat(arm)
          .containsEntry("impl", impl)
          .containsEntry("integrity", "OK")
          .containsEntry("retainedBytes", 300.0 * 1400)
          .containsEntry("reads", 300.0)
          .containsKeys("heldBytes", "rssGrowthBytes", "amplification", "wallMs");
    }
    Map<String, Object> ratios = (Map<String, Object>) json.get("ratios");
    // Sluice/arm, keyed by the other arm
    assertThat(ratios).containsOnlyKeys("netty", "netty-epoll");
    assertThat((Map<String, Object>) ratios.get("netty")).containsEntry("retainedBytes", 1.0);
    assertThat((Map<String, Object>) ratios.get("netty-epoll")).containsEntry("retainedBytes", 1.0);
    assertThat(outcome.stderr())
        .contains(
            "[retention] run 1/1 sluice",
            "[retention] run 1/1 netty ",
            "[retention] run 1/1 netty-epoll");
  }

  @Test
  void aCorruptedByteFailsTheRunAndExitsNonZero() {
    BenchRun outcome =
        bench(
            "retention",
            "--chunks",
            "100",
            "--warmup-chunks",
            "10",
            "--impl",
            "sluice",
            "--corrupt-at",
            "5000");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("impl", "sluice").containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE", "wrong byte at stream offset 5000");
  }

  @Test
  void aCorruptedByteFailsTheBigWriteHashCheck() {
    BenchRun outcome =
        bench(
            "bigwrite",
            "--mib",
            "2",
            "--warmup-mib",
            "1",
            "--impl",
            "netty",
            "--corrupt-at",
            "1500000");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
  }

  /** The epoll arm's bytes go through the same check: a corrupted one fails its run. */
  @Test
  void aCorruptedByteFailsTheNettyEpollPingPong() {
    BenchRun outcome =
        bench(
            "pingpong",
            "--connections",
            "1",
            "--round-trips",
            "50",
            "--warmup-round-trips",
            "5",
            "--impl",
            "netty-epoll",
            "--corrupt-at",
            "3000");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson())
        .containsEntry("impl", "netty-epoll")
        .containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bigwrite --mib 4 --warmup-mib 1 --buffer both",
        "pingpong --connections 3 --round-trips 50 --warmup-round-trips 5 --loops 2",
        "bulk --mib 8 --warmup-mib 1",
        "sizesweep --sizes 512,4096,40000,300000 --mib-per-size 1 --min-messages 4 --max-messages 50"
      })
  @SuppressWarnings("unchecked")
  void everyWorkloadRunsSmallWithEveryArmVerified(String command) {
    BenchRun outcome = bench(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "ratios", "jvmFlags");
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms).containsOnlyKeys("sluice", "netty", "netty-epoll");
    arms.values()
        .forEach(arm -> assertThat((Map<String, Object>) arm).containsEntry("integrity", "OK"));
  }
}
