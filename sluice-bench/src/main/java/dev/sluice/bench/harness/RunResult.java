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
 */
public record RunResult(Map<String, Double> values, boolean integrityOk, String integrityDetail) {

  public RunResult {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** A passed run. */
  public static RunResult ok(Map<String, Double> values) {
    return new RunResult(values, true, "");
  }

  /** A run whose integrity is {@code ok}, with {@code detail} explaining a failure. */
  public static RunResult of(Map<String, Double> values, boolean ok, String detail) {
    return new RunResult(values, ok, ok ? "" : detail);
  }
}
