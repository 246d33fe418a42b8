package dev.sluice.bench.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs a workload's arms round-robin (A B C A B C ...), in {@link Impl}'s order, each {@code runs}
 * times, each run in fresh child JVMs, and summarises them into a {@link Report}. Progress goes to
 * a line sink as it happens.
 */
public final class Harness {
  private final Workload workload;
  private final Params params;
  private final List<Impl> impls;
  private final int runs;
  private final Duration stepTimeout;
  private final Consumer<String> progress;

  /**
   * @param workload what to run
   * @param params its options, complete (defaults filled in)
   * @param impls the arms (they run in {@link Impl}'s order whatever the order of this list); each
   *     one of the workload's {@link Workload#arms}
   * @param runs runs per arm
   * @param stepTimeout how long to wait for any one protocol line of a child
   * @param progress where progress lines go
   */
  public Harness(
      Workload workload,
      Params params,
      List<Impl> impls,
      int runs,
      Duration stepTimeout,
      Consumer<String> progress) {
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be at least 1");
    }
    if (impls.isEmpty()) {
      throw new IllegalArgumentException("no implementation to run");
    }
    for (Impl impl : impls) {
      if (!workload.arms(params).contains(impl)) {
        throw Impl.unsupported(workload.name(), impl);
      }
    }
    this.workload = workload;
    this.params = params;
    this.impls = Impl.inOrder(impls);
    this.runs = runs;
    this.stepTimeout = stepTimeout;
    this.progress = progress;
  }

  /** The flags every child of this benchmark runs with. */
  public List<String> jvmFlags() {
    return JvmFlags.of(workload.memoryFlags(params));
  }

  /**
   * Runs everything.
   *
   * @throws ChildFailedException if a child fails (an integrity failure is not an exception: it
   *     shows in the report)
   */
  public Report run() throws Exception {
    List<String> flags = jvmFlags();
    RunContext context = new RunContext(workload, params, flags, stepTimeout);
    List<Field> fields = workload.fields(params);
    Map<Impl, List<RunResult>> results = new EnumMap<>(Impl.class);
    impls.forEach(impl -> results.put(impl, new ArrayList<>()));
    for (int run = 1; run <= runs; run++) {
      for (Impl impl : impls) {
        long start = System.nanoTime();
        RunResult result = workload.run(context, impl);
        results.get(impl).add(result);
        progress.accept(progressLine(run, impl, fields, result, System.nanoTime() - start));
        if (!result.integrityOk()) {
          progress.accept(
              "INTEGRITY FAILURE in "
                  + workload.name()
                  + " run "
                  + run
                  + " ("
                  + impl.id()
                  + "): "
                  + result.integrityDetail());
        }
      }
    }
    Map<Impl, ArmSummary> arms = new LinkedHashMap<>();
    for (Impl impl : impls) {
      arms.put(impl, ArmSummary.of(impl, fields, results.get(impl)));
    }
    return new Report(
        workload.name(),
        params,
        flags,
        fields,
        List.copyOf(arms.values()),
        workload.derived(arms),
        workload.conditions(params));
  }

  private int idWidth() {
    return impls.stream().mapToInt(i -> i.id().length()).max().orElse(0);
  }

  private String progressLine(
      int run, Impl impl, List<Field> fields, RunResult result, long elapsedNanos) {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "[%s] run %d/%d %-" + idWidth() + "s",
                workload.name(),
                run,
                runs,
                impl.id()));
    int shown = 0;
    for (Field field : fields) {
      Double value = result.values().get(field.name());
      if (value != null && shown++ < 6) {
        line.append(' ').append(field.name()).append('=').append(field.unit().format(value));
      }
    }
    line.append(result.integrityOk() ? "  integrity OK" : "  integrity FAIL");
    line.append(String.format(Locale.ROOT, "  (%.1f s)", elapsedNanos / 1e9));
    return line.toString();
  }
}
