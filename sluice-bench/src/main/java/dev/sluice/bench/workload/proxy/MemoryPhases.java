package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.proxy.Jcmd;
import dev.sluice.bench.proxy.ProxyProcess;
import java.io.IOException;
import java.time.Duration;

/**
 * The steps the memory workloads (proxyidle, burstidle, httpidle) take before their baseline, the
 * same for every arm. The client's warm-up runs first. A JVM proxy is then asked, through {@code
 * jcmd}, how many young collections it has run; while none, the warm-up is repeated (at most {@link
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

  /** A run's load client as the memory phases drive it. */
  interface Client {
    /** Waits for the client's next line, which must be {@code word}. */
    Message awaitClient(String word) throws InterruptedException;

    /** Tells the client to go on with {@code phase}. */
    void go(String phase) throws IOException;
  }

  /** Waits for the client's first warm-up and repeats it as described; returns the rounds run. */
  static int warmUp(ProxyRun run) throws Exception {
    return warmUp(run.proxy, run);
  }

  /**
   * Waits for {@code client}'s first warm-up through {@code proxy} and repeats it as described;
   * returns the rounds run.
   */
  static int warmUp(ProxyProcess proxy, Client client) throws Exception {
    client.awaitClient("WARM");
    int rounds = 1;
    if (proxy.jvm()) {
      while (Jcmd.youngCollections(proxy) == 0 && rounds < MAX_WARMUP_ROUNDS) {
        client.go("warm");
        client.awaitClient("WARM");
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
