package dev.sluice.bench.workload.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the compilers' share of a proxy's CPU is read from two readings. */
class CompilerWarmUpTest {
  private static CompilerWarmUp.Reading reading(long cpuMillis, long compilerMillis) {
    return new CompilerWarmUp.Reading(
        Duration.ofMillis(cpuMillis), Duration.ofMillis(compilerMillis));
  }

  @Test
  void theShareIsTheCompilersPartOfThePhasesCpu() {
    CompilerWarmUp.Reading phase = reading(1_300, 500).since(reading(300, 250));
    assertThat(phase.cpu()).isEqualTo(Duration.ofSeconds(1));
    assertThat(phase.compilerShare()).isEqualTo(0.25);
  }

  @Test
  void aPhaseWithNoCpuHasNoShare() {
    assertThat(reading(700, 200).since(reading(700, 200)).compilerShare()).isZero();
  }

  @Test
  void tickRoundingThatPutsTheCompilersAboveTheTotalStopsAtOne() {
    // Two ticks of the process against three summed over its compiler threads, as CI read once.
    assertThat(reading(20, 30).compilerShare()).isEqualTo(1.0);
  }
}
