package dev.sluice.bench.child;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C library's malloc arenas as glibc's {@code malloc_info()} describes them, through {@code
 * jcmd PID System.native_heap_info}: every {@code malloc} of the process, the JVM's and native
 * libraries' alike (OpenSSL's included), which NMT does not see. Memory a program {@code free}s
 * stays in its arena, resident, until glibc trims it.
 *
 * @param arenaBytes bytes the arenas hold from the operating system ({@code system current})
 * @param freeBytes of those, the bytes in free chunks ({@code total fast} plus {@code total rest})
 * @param mmapBytes bytes of large allocations mapped on their own, in use ({@code total mmap})
 */
public record MallocInfo(long arenaBytes, long freeBytes, long mmapBytes) {
  private static final Pattern TOTAL =
      Pattern.compile("<total type=\"(fast|rest|mmap)\" count=\"\\d+\" size=\"(\\d+)\"/>");
  private static final Pattern SYSTEM =
      Pattern.compile("<system type=\"current\" size=\"(\\d+)\"/>");

  /** Reads the arenas now (glibc only). */
  public static MallocInfo now() {
    return parse(DiagnosticCommands.run("systemNativeHeapInfo"));
  }

  /** Bytes handed out and not yet freed: arena bytes less free chunks, plus large mappings. */
  public long inUseBytes() {
    return arenaBytes - freeBytes + mmapBytes;
  }

  /**
   * Parses malloc_info's XML: the totals after the last arena's {@code </heap>}.
   *
   * @throws IllegalArgumentException when the totals are missing (not glibc)
   */
  public static MallocInfo parse(String xml) {
    int last = xml.lastIndexOf("</heap>");
    if (last < 0 || !xml.contains("<malloc")) {
      throw new IllegalArgumentException("not glibc's malloc_info: " + xml.strip());
    }
    String totals = xml.substring(last);
    long free = 0;
    long mmap = 0;
    Matcher total = TOTAL.matcher(totals);
    while (total.find()) {
      long size = Long.parseLong(total.group(2));
      if (total.group(1).equals("mmap")) {
        mmap = size;
      } else {
        free += size;
      }
    }
    Matcher system = SYSTEM.matcher(totals);
    if (!system.find()) {
      throw new IllegalArgumentException("malloc_info without a system total: " + totals.strip());
    }
    return new MallocInfo(Long.parseLong(system.group(1)), free, mmap);
  }
}
