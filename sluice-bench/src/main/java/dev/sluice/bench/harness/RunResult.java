package dev.sluice.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fields of one run of one arm, and whether every byte checked out.
 *
 * @param values field name to value
 * @param integrityOk whether the run's integrity check passed
 * @param integrityDetail why it failed (empty when it passed)
 * @param notes what the measured side said about itself, as text (e.g. the TLS library it loaded),
 *     shown with its arm in the report
 */
public record RunResult(
    Map<String, Double> values,
    boolean integrityOk,
    String integrityDetail,
    Map<String, String> notes) {

  public RunResult {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    notes = Collections.unmodifiableMap(new LinkedHashMap<>(notes));
  }

  /** A passed run. */
  public static RunResult ok(Map<String, Double> values) {
    return new RunResult(values, true, "", Map.of());
  }

  /** A run whose integrity is {@code ok}, with {@code detail} explaining a failure. */
  public static RunResult of(Map<String, Double> values, boolean ok, String detail) {
    return new RunResult(values, ok, ok ? "" : detail, Map.of());
  }

  /** This result with {@code more} notes added. */
  public RunResult withNotes(Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(notes);
    all.putAll(more);
    return new RunResult(values, integrityOk, integrityDetail, all);
  }
}
