package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.ProxyProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The warm-up of the workloads that report the proxy's CPU per operation (connrate, proxypingpong,
 * handshake), the same rule for every arm. The client's warm-up round runs first; while a JVM
 * proxy's JIT compiler threads used more than {@link #QUIET_SHARE} of its CPU in the last round,
 * the round is repeated (at most {@link #MAX_ROUNDS}). A compilation is a cost paid once after a
 * start; counted in the measured phase it reads as CPU per connection. Measured on 2026-12-04:
 * after connrate's 20,000 warm-up connections, C2 was still compiling three seconds into the
 * measured phase and the proxy's CPU per connection read 1.05x HAProxy's; after 60,000, 0.99x.
 * HAProxy has no compiler and runs the one round. The share left in the measured phase is reported
 * ({@link #SHARE}), so a figure that still holds compilation says so.
 */
final class CompilerWarmUp {
  /** Below this share of the proxy's CPU in a round, its compilers count as quiet. */
  static final double QUIET_SHARE = 0.02;

  static final int MAX_ROUNDS = 10;

  static final Field ROUNDS =
      new Field(
          "warmupRounds",
          Unit.COUNT,
          "warm-up rounds run (a JVM proxy's repeat while its JIT compilers used over 2% of its"
              + " CPU)");

  static final Field SHARE =
      new Field(
          "compilerCpuShare",
          Unit.RATIO,
          "share of the proxy's measured CPU its JIT compiler threads used (0 for HAProxy)");

  private CompilerWarmUp() {}

  /**
   * Waits for the client's READY after each warm-up round and asks for another ({@code GO warm})
   * while the proxy's compilers were busy in the last one. The first round counts from the proxy's
   * start, so its start-up compilations count against it too.
   */
  static Warmed warmUp(ProxyRun run) throws Exception {
    Reading before = new Reading(Duration.ZERO, Duration.ZERO);
    Message ready = run.awaitClient("READY");
    int rounds = 1;
    Reading now = Reading.of(run.proxy);
    while (run.proxy.jvm()
        && now.since(before).compilerShare() > QUIET_SHARE
        && rounds < MAX_ROUNDS) {
      before = now;
      run.go("warm");
      ready = run.awaitClient("READY");
      rounds++;
      now = Reading.of(run.proxy);
    }
    return new Warmed(rounds, ready);
  }

  /** The warm-up's rounds and the client's last READY (which may carry its counts). */
  record Warmed(int rounds, Message lastReady) {
    /** Puts {@link #ROUNDS} and {@link #SHARE} (of {@code measured}) into {@code values}. */
    void report(Map<String, Double> values, Reading measured) {
      values.put(ROUNDS.name(), (double) rounds);
      values.put(SHARE.name(), measured.compilerShare());
    }
  }

  /**
   * The proxy's CPU time and its compiler threads' part of it, so far or (from {@link #since}) over
   * a phase.
   */
  record Reading(Duration cpu, Duration compiler) {
    static Reading of(ProxyProcess proxy) throws IOException {
      return new Reading(proxy.cpuTime(), proxy.compilerCpuTime());
    }

    Reading since(Reading earlier) {
      return new Reading(cpu.minus(earlier.cpu), compiler.minus(earlier.compiler));
    }

    /**
     * The compilers' share of the CPU; 0 when no CPU was used. Both readings count whole clock
     * ticks (10 ms), the compilers' as a sum over their threads: over a short phase their rounding
     * can put the compilers above the total (CI read 1.5), so the share stops at 1.
     */
    double compilerShare() {
      return cpu.isZero() ? 0 : Math.min(1, (double) compiler.toNanos() / cpu.toNanos());
    }
  }
}
