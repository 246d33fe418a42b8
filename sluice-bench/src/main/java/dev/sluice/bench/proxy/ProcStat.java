package dev.sluice.bench.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

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
   * The CPU time {@code pid}'s JIT compiler threads have used so far: the sum over its threads
   * ({@code /proc/PID/task/TID/stat}) whose name is HotSpot's {@code C1 CompilerThreadN} or {@code
   * C2 CompilerThreadN} (the kernel keeps 15 characters of it). HotSpot never stops the first
   * compiler thread of each kind; the CPU of an extra one it stopped (after it idled) is no longer
   * counted. Zero for a process with no such thread (HAProxy).
   */
  public static Duration compilerCpuTime(long pid) throws IOException {
    Duration total = Duration.ZERO;
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (NoSuchFileException e) {
          continue; // the thread ended between the listing and the reading
        }
        if (isCompilerThread(stat)) {
          total = total.plus(cpuTime(stat));
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return total;
  }

  /** Whether a thread's stat line names a HotSpot JIT compiler thread. */
  static boolean isCompilerThread(String stat) {
    int start = stat.indexOf('(');
    String name = start < 0 ? "" : stat.substring(start + 1);
    return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
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
