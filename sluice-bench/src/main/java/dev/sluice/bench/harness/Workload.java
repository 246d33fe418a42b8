package dev.sluice.bench.harness;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One benchmark: what it measures, its options, and its two sides. Adding a workload means adding
 * one class that implements this and listing it in {@link dev.sluice.bench.workload.Workloads}; the
 * harness does the rest (processes, alternation, statistics, table, JSON, exit status).
 *
 * <p>Code of a workload runs in three places: {@link #run} in the harness process sequences one run
 * of one arm; {@link #program} returns what the two child JVMs run — the measured side for an
 * {@link Impl}, and the peer (the same plain-JDK code in every arm). A workload declares the arms
 * it has ({@link #arms}); the harness runs them in {@link Impl}'s order.
 */
public interface Workload {

  /** The name on the command line, e.g. {@code retention}. */
  String name();

  /** One line for the usage text. */
  String summary();

  /** The workload's own options with their defaults (the full sizes). */
  List<Option> options();

  /** The fields each run reports, in display order. */
  List<Field> fields(Params params);

  /**
   * The memory flags (heap size, direct-memory limit) of both child JVMs, identical for every arm
   * (the harness adds the rest; see {@link JvmFlags}).
   */
  List<String> memoryFlags(Params params);

  /**
   * The arms this workload can run with {@code params}, which {@code --impl all} (the default)
   * runs.
   */
  Set<Impl> arms(Params params);

  /**
   * What a child JVM in {@code role} runs; {@code impl} is null for the peer, and otherwise one of
   * {@link #arms}.
   */
  ChildProgram program(Role role, Impl impl);

  /**
   * Runs one measurement of {@code impl} (one of {@link #arms}): starts the children, sequences
   * them, collects fields.
   */
  RunResult run(RunContext context, Impl impl) throws Exception;

  /**
   * Extra per-arm results derived from all arms' medians (e.g. the size sweep's cliffs), added to
   * each arm's JSON object and printed under the table. Empty by default.
   */
  default Map<Impl, Map<String, Object>> derived(Map<Impl, ArmSummary> arms) {
    return Map.of();
  }

  /**
   * What every run of this benchmark had in common that its params and JVM flags do not say (e.g.
   * the negotiated TLS version and cipher suite), stated in the table and the JSON. Empty by
   * default.
   */
  default Map<String, String> conditions(Params params) {
    return Map.of();
  }
}
