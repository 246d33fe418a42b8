package dev.sluice.bench.child;

import java.util.HashMap;
import java.util.Map;

/**
 * The live heap by class, as {@code jcmd PID GC.class_histogram} prints it, taken inside a measured
 * child through the DiagnosticCommand MBean. The command runs a full GC and then counts every
 * object left, so its total is the live heap to the byte. {@code MemoryMXBean}'s used heap after
 * {@code System.gc()} is not: with SerialGC it wandered by 100-500 KB between two readings of the
 * same live set here (dead space a full GC may leave, and what is allocated after it), as much as
 * the bytes a TLS retention run keeps.
 *
 * @param bytesByClass shallow bytes of all live instances, by class name ({@code [B} for byte[]);
 *     without the fillers a GC writes into dead space it did not compact away ({@code
 *     jdk.internal.vm.FillerElement[]}, {@code FillerObject}), which are not live objects
 */
public record HeapHistogram(Map<String, Long> bytesByClass) {

  public HeapHistogram {
    bytesByClass = Map.copyOf(bytesByClass);
  }

  /** Takes a histogram of the live heap now. */
  public static HeapHistogram take() {
    return parse(DiagnosticCommands.run("gcClassHistogram"));
  }

  /** Bytes of all live objects. */
  public long liveBytes() {
    return bytesByClass.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Parses the text of {@code GC.class_histogram}. */
  public static HeapHistogram parse(String text) {
    Map<String, Long> bytes = new HashMap<>();
    for (String line : text.split("\n")) {
      // "   1:          1234         567890  java.lang.String (java.base@25)"
      String[] parts = line.trim().split("\\s+");
      if (parts.length >= 4
          && parts[0].endsWith(":")
          && Character.isDigit(parts[0].charAt(0))
          && !parts[3].contains("jdk.internal.vm.Filler")) {
        bytes.merge(parts[3], Long.parseLong(parts[2]), Long::sum);
      }
    }
    return new HeapHistogram(bytes);
  }

  /** Bytes by class that {@code later} has more (or fewer, negative) than this one. */
  public Map<String, Long> growthTo(HeapHistogram later) {
    Map<String, Long> growth = new HashMap<>();
    later.bytesByClass.forEach((name, bytes) -> growth.put(name, bytes));
    bytesByClass.forEach((name, bytes) -> growth.merge(name, -bytes, Long::sum));
    growth.values().removeIf(v -> v == 0);
    return growth;
  }
}
