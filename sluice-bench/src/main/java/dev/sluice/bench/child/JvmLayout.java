package dev.sluice.bench.child;

import dev.sluice.bench.harness.AddressRange;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where this JVM keeps its Java heap and its code cache, as it says itself ({@code GC.heap_info},
 * {@code Compiler.codecache}): the reserved address ranges, which do not move, so that the harness
 * can count the resident pages of each in {@code /proc/PID/smaps}.
 *
 * @param javaHeap the whole reserved heap (young and old generations)
 * @param codeCache the whole reserved code cache (all its code heaps)
 */
public record JvmLayout(AddressRange javaHeap, AddressRange codeCache) {
  /**
   * {@code [0x...c0000000, 0x...c0800000, 0x...c0800000)}: start, committed end, reserved end
   * (SerialGC's generations, the code heaps); or {@code [start, end)} (G1's whole heap).
   */
  private static final Pattern ADDRESSES =
      Pattern.compile("\\[(0x[0-9a-f]+), (0x[0-9a-f]+)(?:, (0x[0-9a-f]+))?[)\\]]");

  /** Asks this JVM. */
  public static JvmLayout now() {
    return new JvmLayout(
        span(DiagnosticCommands.run("gcHeapInfo"), "total"),
        span(DiagnosticCommands.run("compilerCodecache"), "bounds"));
  }

  /**
   * The span of the address ranges on the lines of {@code text} that contain {@code marker}: from
   * the lowest start to the highest reserved end. {@code GC.heap_info} gives one per generation
   * (lines with "total"), {@code Compiler.codecache} one per code heap (lines with "bounds").
   *
   * @throws IllegalArgumentException when there is none
   */
  static AddressRange span(String text, String marker) {
    List<AddressRange> ranges = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.contains(marker)) {
        continue;
      }
      Matcher addresses = ADDRESSES.matcher(line);
      if (addresses.find()) {
        String end = addresses.group(3) != null ? addresses.group(3) : addresses.group(2);
        ranges.add(new AddressRange(AddressRange.hex(addresses.group(1)), AddressRange.hex(end)));
      }
    }
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("no address range in: " + text.strip());
    }
    long start = ranges.getFirst().start();
    long end = ranges.getFirst().end();
    for (AddressRange r : ranges) {
      start = Long.compareUnsigned(r.start(), start) < 0 ? r.start() : start;
      end = Long.compareUnsigned(r.end(), end) > 0 ? r.end() : end;
    }
    return new AddressRange(start, end);
  }
}
