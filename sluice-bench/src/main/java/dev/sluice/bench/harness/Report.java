package dev.sluice.bench.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a benchmark: every arm's medians with min and max, rendered as a table for people
 * and as one JSON object for machines.
 *
 * @param workload the workload's name
 * @param params the options it ran with
 * @param jvmFlags the flags of every child JVM
 * @param fields the fields, in display order
 * @param arms the arms, in the order they ran ({@link Impl}'s)
 * @param derived extra per-arm results from {@link Workload#derived}
 * @param conditions what the runs had in common beyond params and flags, from {@link
 *     Workload#conditions} (e.g. the TLS version and cipher suite)
 */
public record Report(
    String workload,
    Params params,
    List<String> jvmFlags,
    List<Field> fields,
    List<ArmSummary> arms,
    Map<Impl, Map<String, Object>> derived,
    Map<String, String> conditions) {

  public Report {
    jvmFlags = List.copyOf(jvmFlags);
    fields = List.copyOf(fields);
    arms = List.copyOf(arms);
    derived = Map.copyOf(derived);
    conditions = Collections.unmodifiableMap(new LinkedHashMap<>(conditions));
  }

  /** A report with no stated conditions. */
  public Report(
      String workload,
      Params params,
      List<String> jvmFlags,
      List<Field> fields,
      List<ArmSummary> arms,
      Map<Impl, Map<String, Object>> derived) {
    this(workload, params, jvmFlags, fields, arms, derived, Map.of());
  }

  /** Whether every run of every arm passed its integrity check. */
  public boolean integrityOk() {
    return arms.stream().allMatch(ArmSummary::integrityOk);
  }

  /** The summary of {@code impl}, or null if it did not run. */
  public ArmSummary arm(Impl impl) {
    return arms.stream().filter(a -> a.impl() == impl).findFirst().orElse(null);
  }

  /**
   * The report as one JSON object: with one arm, its fields (medians) at top level beside {@code
   * impl}, {@code runs} and {@code integrity}; with more, one such object per arm under {@code
   * arms} (keyed by arm id, in {@link Impl}'s order) and, when Sluice ran, the ratios Sluice/arm of
   * the medians under {@code ratios}, one object per other arm keyed by its id.
   */
  public Map<String, Object> toJson() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("workload", workload);
    if (arms.size() == 1) {
      root.putAll(armJson(arms.getFirst()));
    } else {
      root.put("runs", arms.getFirst().runs());
      root.put("integrity", integrityOk() ? "OK" : "FAIL");
      Map<String, Object> armObjects = new LinkedHashMap<>();
      for (ArmSummary arm : arms) {
        armObjects.put(arm.impl().id(), armJson(arm));
      }
      root.put("arms", armObjects);
      if (!comparedArms().isEmpty()) {
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (ArmSummary other : comparedArms()) {
          Map<String, Object> ofArm = new LinkedHashMap<>();
          for (Field field : fields) {
            double ratio = sluiceOver(other, field);
            if (!Double.isNaN(ratio)) {
              putNested(ofArm, field.name(), ratio);
            }
          }
          ratios.put(other.impl().id(), ofArm);
        }
        root.put("ratios", ratios);
      }
    }
    root.put("params", params.asMap());
    if (!conditions.isEmpty()) {
      root.put("conditions", conditions);
    }
    root.put("jvmFlags", jvmFlags);
    return root;
  }

  /** {@link #toJson()} on one line. */
  public String json() {
    return Json.write(toJson());
  }

  /** The arms Sluice is compared with: every other arm, when Sluice ran; else none. */
  private List<ArmSummary> comparedArms() {
    if (arm(Impl.SLUICE) == null) {
      return List.of();
    }
    return arms.stream().filter(a -> a.impl() != Impl.SLUICE).toList();
  }

  /** Sluice's median of {@code field} over {@code other}'s, or NaN. */
  private double sluiceOver(ArmSummary other, Field field) {
    return ratio(arm(Impl.SLUICE).median(field.name()), other.median(field.name()));
  }

  private Map<String, Object> armJson(ArmSummary arm) {
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("impl", arm.impl().id());
    object.put("runs", arm.runs());
    object.put("integrity", arm.integrityOk() ? "OK" : "FAIL");
    Map<String, Object> min = new LinkedHashMap<>();
    Map<String, Object> max = new LinkedHashMap<>();
    for (Field field : fields) {
      Stats s = arm.stats().get(field.name());
      if (s != null) {
        putNested(object, field.name(), s.median());
        putNested(min, field.name(), s.min());
        putNested(max, field.name(), s.max());
      }
    }
    object.put("min", min);
    object.put("max", max);
    object.putAll(arm.notes());
    object.putAll(derived.getOrDefault(arm.impl(), Map.of()));
    if (!arm.integrityOk()) {
      object.put("failures", arm.failures());
    }
    return object;
  }

  /**
   * The table of medians [min .. max], one row per field, one column per arm, then one column per
   * other arm with the ratio Sluice/arm.
   */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append(workload).append("  ");
    params.asMap().forEach((k, v) -> out.append(k).append('=').append(v).append(' '));
    out.append(
        String.format(
            Locale.ROOT,
            "%n%d run(s) per arm, arms alternated; median [min .. max]%n",
            arms.isEmpty() ? 0 : arms.getFirst().runs()));
    out.append("JVM flags of every child (every arm and the peer): ")
        .append(String.join(" ", jvmFlags))
        .append(System.lineSeparator());
    conditions.forEach(
        (k, v) -> out.append(k).append(": ").append(v).append(System.lineSeparator()));

    List<String> header = new ArrayList<>();
    List<List<String>> rows = new ArrayList<>();
    header.add("field");
    arms.forEach(arm -> header.add(arm.impl().displayName()));
    comparedArms().forEach(other -> header.add("Sluice/" + other.impl().displayName()));
    for (Field field : fields) {
      List<String> row = new ArrayList<>();
      row.add(field.name());
      for (ArmSummary arm : arms) {
        Stats s = arm.stats().get(field.name());
        row.add(
            s == null
                ? "-"
                : field.unit().format(s.median())
                    + " ["
                    + field.unit().format(s.min())
                    + " .. "
                    + field.unit().format(s.max())
                    + "]");
      }
      for (ArmSummary other : comparedArms()) {
        double r = sluiceOver(other, field);
        row.add(Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.2f", r));
      }
      rows.add(row);
    }
    int[] widths = new int[header.size()];
    for (List<String> row : concat(header, rows)) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : concat(header, rows)) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(String.format(Locale.ROOT, "%-" + (widths[i] + 2) + "s", row.get(i)));
      }
      out.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }

    for (ArmSummary arm : arms) {
      arm.notes()
          .forEach(
              (k, v) ->
                  out.append(arm.impl().displayName())
                      .append(' ')
                      .append(k)
                      .append(": ")
                      .append(v)
                      .append(System.lineSeparator()));
      derived
          .getOrDefault(arm.impl(), Map.of())
          .forEach(
              (k, v) ->
                  out.append(arm.impl().displayName())
                      .append(' ')
                      .append(k)
                      .append(": ")
                      .append(Json.write(v))
                      .append(System.lineSeparator()));
    }
    out.append("integrity: ");
    for (int i = 0; i < arms.size(); i++) {
      ArmSummary arm = arms.get(i);
      out.append(i == 0 ? "" : ", ")
          .append(arm.impl().displayName())
          .append(' ')
          .append(arm.integrityOk() ? "OK" : "FAIL");
    }
    out.append(System.lineSeparator());
    return out.toString();
  }

  private static List<List<String>> concat(List<String> header, List<List<String>> rows) {
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    return all;
  }

  private static double ratio(double sluice, double other) {
    if (Double.isNaN(sluice) || Double.isNaN(other) || other == 0) {
      return Double.NaN;
    }
    return sluice / other;
  }

  @SuppressWarnings("unchecked")
  private static void putNested(Map<String, Object> target, String dottedName, Object value) {
    int dot = dottedName.indexOf('.');
    if (dot < 0) {
      target.put(dottedName, value);
      return;
    }
    Object inner =
        target.computeIfAbsent(
            dottedName.substring(0, dot), k -> new LinkedHashMap<String, Object>());
    putNested((Map<String, Object>) inner, dottedName.substring(dot + 1), value);
  }
}
