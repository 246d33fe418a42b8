package dev.sluice.bench.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * CPU time of a process from {@code /proc/PID/stat}: {@code utime + stime} (fields 14 and 15), the
 * total over all its threads, in the kernel's user-visible clock ticks (USER_HZ, 100 a second on
 * Linux).
 */
public final class ProcStat {
  /** USER_HZ: fixed at 100 by the kernel's ABI on every architecture the JDK runs on here. */
  static final long TICKS_PER_SECOND = 100;

  private ProcStat() {}

  /** The CPU time {@code pid} has used so far. */
  public static Duration cpuTime(long pid) throws IOException {
    return cpuTime(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
  }

  /**
   * Parses the text of a stat file. The second field, the command name in parentheses, may hold
   * spaces and parentheses itself: the fields are counted from the last {@code ')'}.
   */
  static Duration cpuTime(String stat) {
    int end = stat.lastIndexOf(')');
    if (end < 0) {
      throw new IllegalArgumentException("not a /proc/PID/stat line: " + stat);
    }
    // After ")": field 3 (state) is at index 0, so field N is at index N - 3.
    String[] fields = stat.substring(end + 1).trim().split("\\s+");
    long ticks = Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3]);
    return Duration.ofMillis(ticks * 1000 / TICKS_PER_SECOND);
  }
}
