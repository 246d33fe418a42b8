package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.Params;
import dev.sluice.bench.proxy.Jcmd;
import java.time.Duration;

/**
 * The steps the memory workloads (proxyidle, burstidle) take before their baseline, the same for
 * every arm. The client's warm-up runs first. A JVM proxy is then asked, through {@code jcmd}, how
 * many young collections it has run; while none, the warm-up is repeated (at most {@link
 * #MAX_WARMUP_ROUNDS} rounds): until the young generation has been filled once, its pages are not
 * all resident, and first touching them inside the measurement would count the JVM's young
 * generation as per-connection memory, which a server that has carried any traffic has long paid.
 * That first {@code jcmd} also starts the JVM's attach listener before the baseline. HAProxy runs
 * the one warm-up round.
 */
final class MemoryPhases {
  static final String SETTLE_MS = "settle-ms";
  static final int MAX_WARMUP_ROUNDS = 20;

  private MemoryPhases() {}

  /** Waits for the client's first warm-up and repeats it as described; returns the rounds run. */
  static int warmUp(ProxyRun run) throws Exception {
    run.awaitClient("WARM");
    int rounds = 1;
    if (run.proxy.jvm()) {
      while (Jcmd.youngCollections(run.proxy.pid()) == 0 && rounds < MAX_WARMUP_ROUNDS) {
        run.go("warm");
        run.awaitClient("WARM");
        rounds++;
      }
    }
    return rounds;
  }

  /** How long the proxy is left alone before each memory reading. */
  static Duration settle(Params params) {
    return Duration.ofMillis(params.count(SETTLE_MS));
  }
}
