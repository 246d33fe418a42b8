package dev.sluice.proxy.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration's units: durations like {@code 250ms}, {@code 5s}, {@code 1h} ({@code none} for
 * no timeout) and sizes like {@code 512B}, {@code 64KiB}, {@code 256MiB} (binary units; a bare
 * number is bytes).
 */
public final class Units {
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)(B|KiB|MiB|GiB)?");

  private Units() {}

  /**
   * Parses a duration; {@code none} is {@link Duration#ZERO} (no timeout).
   *
   * @throws IllegalArgumentException saying what is accepted
   */
  public static Duration duration(String text) {
    String t = text.strip();
    if (t.equals("none")) {
      return Duration.ZERO;
    }
    Matcher m = DURATION.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a duration: use a number and ms, s, m, h or d (250ms, 5s, 1h), or"
              + " none");
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    if (n == 0) {
      throw new IllegalArgumentException("'" + text + "': use none for no timeout");
    }
    try {
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
  }

  /**
   * Parses a size in bytes.
   *
   * @throws IllegalArgumentException saying what is accepted
   */
  public static long size(String text) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a size: use a number of bytes, or a number and B, KiB, MiB or GiB"
              + " (64KiB, 256MiB)");
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    int shift =
        switch (m.group(2) == null ? "B" : m.group(2)) {
          case "KiB" -> 10;
          case "MiB" -> 20;
          case "GiB" -> 30;
          default -> 0;
        };
    if (n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    return n << shift;
  }

  /** A size as the configuration would spell it (64KiB), for messages and dumps. */
  public static String formatSize(long bytes) {
    if (bytes >= 1 << 30 && bytes % (1 << 30) == 0) {
      return (bytes >> 30) + "GiB";
    }
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + "MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + "KiB";
    }
    return bytes + "B";
  }

  /** A duration as the configuration would spell it (5s, 250ms, none). */
  public static String formatDuration(Duration d) {
    if (d.isZero()) {
      return "none";
    }
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return String.format(Locale.ROOT, "%dms", ms);
  }

  /** A time span for people, rounded (850us, 12.3ms, 4.1s, 3m12s, 2h05m, 3d04h), for dumps. */
  public static String formatNanos(long nanos) {
    if (nanos < 1_000_000) {
      return nanos / 1000 + "us";
    }
    if (nanos < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.1fms", nanos / 1e6);
    }
    long s = nanos / 1_000_000_000;
    if (s < 60) {
      return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3600);
  }

  /** A size for people, rounded to three digits (512B, 1.5KiB, 230MiB), for dumps and pages. */
  public static String formatBytes(double bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int unit = 0;
    while (Math.abs(bytes) >= 1024 && unit < units.length - 1) {
      bytes /= 1024;
      unit++;
    }
    if (unit == 0) {
      return Math.round(bytes) + "B";
    }
    return String.format(
        Locale.ROOT,
        Math.abs(bytes) < 10 ? "%.2f%s" : Math.abs(bytes) < 100 ? "%.1f%s" : "%.0f%s",
        bytes,
        units[unit]);
  }
}
