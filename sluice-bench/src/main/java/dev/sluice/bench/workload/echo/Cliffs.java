package dev.sluice.bench.workload.echo;

import dev.sluice.bench.harness.ArmSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Finds drops of more than {@link SizeSweepWorkload#CLIFF} between neighbouring sizes. */
final class Cliffs {
  private static final String POINTS = "points.";

  private Cliffs() {}

  /**
   * The cliffs in {@code arm}'s median curve, each with the other arm's drop at the same place.
   *
   * @param other the other arm of the same run, or null when only one arm ran
   */
  static List<Map<String, Object>> find(ArmSummary arm, ArmSummary other) {
    List<String> names = arm.stats().keySet().stream().filter(k -> k.startsWith(POINTS)).toList();
    List<Map<String, Object>> cliffs = new ArrayList<>();
    for (int i = 1; i < names.size(); i++) {
      double drop = drop(arm, names.get(i - 1), names.get(i));
      if (drop > SizeSweepWorkload.CLIFF) {
        Map<String, Object> cliff = new LinkedHashMap<>();
        cliff.put("from", Long.parseLong(names.get(i - 1).substring(POINTS.length())));
        cliff.put("to", Long.parseLong(names.get(i).substring(POINTS.length())));
        cliff.put("dropPercent", Math.round(drop * 1000) / 10.0);
        if (other != null) {
          double otherDrop = drop(other, names.get(i - 1), names.get(i));
          String id = other.impl().id();
          cliff.put(id + "Too", otherDrop > SizeSweepWorkload.CLIFF);
          cliff.put(id + "DropPercent", Math.round(otherDrop * 1000) / 10.0);
        }
        cliffs.add(cliff);
      }
    }
    return cliffs;
  }

  /** The fractional drop from {@code before} to {@code after} (negative for a rise). */
  static double drop(ArmSummary arm, String before, String after) {
    double a = arm.median(before);
    double b = arm.median(after);
    if (Double.isNaN(a) || Double.isNaN(b) || a <= 0) {
      return Double.NaN;
    }
    return (a - b) / a;
  }
}
