package dev.sluice.bench.child;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Native Memory Tracking's account of what the JVM itself committed since a baseline: the text of
 * {@code jcmd PID VM.native_memory summary.diff} (the JVM runs with {@code
 * -XX:NativeMemoryTracking=summary}), by category. NMT sees the JVM's own memory — Java heap,
 * metaspace, code cache, thread stacks, GC structures, its own mallocs and arenas — and nothing a
 * native library allocates with {@code malloc} on its own (OpenSSL's).
 *
 * @param committedGrowthBytes committed bytes added since the baseline (negative: given back), by
 *     category as NMT names it ({@code Java Heap}, {@code Class}, {@code Thread}, {@code Code},
 *     {@code Compiler}, {@code Arena Chunk}...)
 * @param totalCommittedGrowthBytes the same over every category
 */
public record NativeMemoryDiff(
    Map<String, Long> committedGrowthBytes, long totalCommittedGrowthBytes) {

  /** {@code - Thread (reserved=13357KB +1KB, committed=889KB +12KB)}: the deltas are optional. */
  private static final Pattern CATEGORY =
      Pattern.compile(
          "^-\\s+(.+?) \\(reserved=\\d+KB(?: [+-]\\d+KB)?, committed=\\d+KB(?: ([+-]\\d+)KB)?.*");

  private static final Pattern TOTAL =
      Pattern.compile(
          "^Total: reserved=\\d+KB(?: [+-]\\d+KB)?, committed=\\d+KB(?: ([+-]\\d+)KB)?.*");

  public NativeMemoryDiff {
    committedGrowthBytes = Collections.unmodifiableMap(new LinkedHashMap<>(committedGrowthBytes));
  }

  /** Takes NMT's baseline now; {@link #sinceBaseline} later reports growth from here. */
  public static void baseline() {
    String out = DiagnosticCommands.run("vmNativeMemory", "baseline");
    if (!out.contains("Baseline taken")) {
      throw new IllegalStateException(
          "no NMT baseline (is -XX:NativeMemoryTracking=summary set?): " + out.strip());
    }
  }

  /** What changed since {@link #baseline}. */
  public static NativeMemoryDiff sinceBaseline() {
    return parse(DiagnosticCommands.run("vmNativeMemory", "summary.diff", "scale=KB"));
  }

  /**
   * Parses the text of {@code VM.native_memory summary.diff scale=KB}.
   *
   * @throws IllegalArgumentException if it has no Total line (NMT off, or another format)
   */
  public static NativeMemoryDiff parse(String text) {
    Map<String, Long> growth = new LinkedHashMap<>();
    Long total = null;
    for (String line : text.split("\n")) {
      Matcher category = CATEGORY.matcher(line.strip());
      if (category.matches()) {
        growth.put(category.group(1).strip(), kilobytes(category.group(2)));
        continue;
      }
      Matcher totalLine = TOTAL.matcher(line.strip());
      if (totalLine.matches()) {
        total = kilobytes(totalLine.group(1));
      }
    }
    if (total == null) {
      throw new IllegalArgumentException("not an NMT summary.diff: " + text.strip());
    }
    return new NativeMemoryDiff(growth, total);
  }

  /** Growth of {@code category}, 0 when NMT did not list it (it lists only what weighs 1 KB). */
  public long growth(String category) {
    return committedGrowthBytes.getOrDefault(category, 0L);
  }

  private static long kilobytes(String signed) {
    return signed == null ? 0 : Long.parseLong(signed) * 1024;
  }
}
