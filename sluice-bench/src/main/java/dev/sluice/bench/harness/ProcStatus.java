package dev.sluice.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The memory lines of a process's {@code /proc/PID/status}, read from outside the process.
 *
 * @param vmRssBytes resident set size now
 * @param vmHwmBytes peak resident set size since start (or since the last {@code clear_refs 5})
 */
public record ProcStatus(long vmRssBytes, long vmHwmBytes) {

  /** Reads {@code /proc/PID/status}. */
  public static ProcStatus read(long pid) throws IOException {
    return parse(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
  }

  /**
   * Resets the VmHWM of process {@code pid} to its current RSS (writes 5 to {@code
   * /proc/PID/clear_refs}).
   *
   * @return false where the kernel or permissions do not allow it
   */
  public static boolean resetPeak(long pid) {
    try {
      Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
      return true;
    } catch (IOException | SecurityException e) {
      return false;
    }
  }

  /**
   * Parses the text of a status file.
   *
   * @throws IllegalArgumentException if VmRSS or VmHWM is missing or not in kB
   */
  public static ProcStatus parse(String status) {
    return new ProcStatus(kilobytes(status, "VmRSS") * 1024, kilobytes(status, "VmHWM") * 1024);
  }

  private static long kilobytes(String status, String key) {
    for (String line : status.split("\n")) {
      if (line.startsWith(key + ":")) {
        String[] parts = line.substring(key.length() + 1).trim().split("\\s+");
        if (parts.length != 2 || !parts[1].equals("kB")) {
          throw new IllegalArgumentException("unexpected " + key + " line: '" + line + "'");
        }
        return Long.parseLong(parts[0]);
      }
    }
    throw new IllegalArgumentException(
        "no " + key + " line in the status file (is this Linux, and is the process alive?)");
  }
}
