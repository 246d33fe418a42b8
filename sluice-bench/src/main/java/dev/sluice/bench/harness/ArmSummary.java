package dev.sluice.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One arm's runs summarised.
 *
 * @param impl the implementation
 * @param runs how many runs completed
 * @param stats field name to median, min and max, in the workload's field order
 * @param integrityOk whether every run's integrity check passed
 * @param failures the integrity failures, one line each
 * @param notes each note of the runs ({@link RunResult#notes}) with its values, distinct ones
 *     joined by {@code " | "} (one, when every run said the same)
 */
public record ArmSummary(
    Impl impl,
    int runs,
    Map<String, Stats> stats,
    boolean integrityOk,
    List<String> failures,
    Map<String, String> notes) {

  public ArmSummary {
    stats = Collections.unmodifiableMap(new LinkedHashMap<>(stats));
    failures = List.copyOf(failures);
    notes = Collections.unmodifiableMap(new LinkedHashMap<>(notes));
  }

  /** The median of {@code field}, or NaN when this arm did not report it. */
  public double median(String field) {
    Stats s = stats.get(field);
    return s == null ? Double.NaN : s.median();
  }

  /** Summarises the runs of one arm, in the order of {@code fields}. */
  public static ArmSummary of(Impl impl, List<Field> fields, List<RunResult> results) {
    Map<String, Stats> stats = new LinkedHashMap<>();
    for (Field field : fields) {
      List<Double> values =
          results.stream()
              .map(r -> r.values().get(field.name()))
              .filter(v -> v != null && !v.isNaN())
              .toList();
      if (!values.isEmpty()) {
        stats.put(field.name(), Stats.of(values));
      }
    }
    List<String> failures =
        results.stream().filter(r -> !r.integrityOk()).map(RunResult::integrityDetail).toList();
    Map<String, Set<String>> said = new LinkedHashMap<>();
    results.forEach(
        r ->
            r.notes()
                .forEach((k, v) -> said.computeIfAbsent(k, x -> new LinkedHashSet<>()).add(v)));
    Map<String, String> notes = new LinkedHashMap<>();
    said.forEach((k, values) -> notes.put(k, String.join(" | ", values)));
    return new ArmSummary(impl, results.size(), stats, failures.isEmpty(), failures, notes);
  }
}
