package dev.sluice.bench.harness;

import java.util.Locale;

/** How a field's values read: what they count and how a table shows them. */
public enum Unit {
  BYTES,
  MILLIS,
  MICROS,
  SECONDS,
  MIB_PER_SEC,
  RATIO,
  COUNT;

  private static final double KIB = 1024;
  private static final double MIB = 1024 * 1024;

  /** A short human-readable rendering of {@code value} in this unit. */
  public String format(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return switch (this) {
      case BYTES -> formatBytes(value);
      case MILLIS -> String.format(Locale.ROOT, "%.0f ms", value);
      case MICROS -> String.format(Locale.ROOT, "%.1f us", value);
      case SECONDS -> String.format(Locale.ROOT, "%.2f s", value);
      case MIB_PER_SEC -> String.format(Locale.ROOT, "%.0f MiB/s", value);
      case RATIO -> String.format(Locale.ROOT, "%.2fx", value);
      case COUNT -> String.format(Locale.ROOT, "%.0f", value);
    };
  }

  private static String formatBytes(double value) {
    double magnitude = Math.abs(value);
    if (magnitude >= MIB) {
      return String.format(Locale.ROOT, "%.1f MiB", value / MIB);
    }
    if (magnitude >= KIB) {
      return String.format(Locale.ROOT, "%.1f KiB", value / KIB);
    }
    return String.format(Locale.ROOT, "%.0f B", value);
  }
}
