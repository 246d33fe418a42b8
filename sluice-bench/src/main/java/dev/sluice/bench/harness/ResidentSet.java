package dev.sluice.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A process's resident set from {@code /proc/PID/status}, split as the kernel counts it, read from
 * outside the process: {@code RssAnon} (private memory: heaps, stacks, written pages of private
 * file mappings such as a CDS archive's), {@code RssFile} (pages of mapped files: the JVM's
 * libraries, jars, the modules image) and {@code RssShmem}. {@link #ofTree} adds up a process and
 * its descendants, so a launcher script that forks the JVM instead of exec'ing it is measured with
 * it.
 *
 * @param vmRssBytes VmRSS (the sum of the three below)
 * @param anonBytes RssAnon
 * @param fileBytes RssFile
 * @param shmemBytes RssShmem
 * @param threads the number of threads
 * @param processes how many processes were added up
 */
public record ResidentSet(
    long vmRssBytes, long anonBytes, long fileBytes, long shmemBytes, long threads, int processes) {

  /** Reads {@code /proc/PID/status}. */
  public static ResidentSet of(long pid) throws IOException {
    return parse(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
  }

  /** Process {@code pid} and every live descendant, added up. */
  public static ResidentSet ofTree(long pid) throws IOException {
    List<Long> pids = new ArrayList<>();
    pids.add(pid);
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
    ResidentSet sum = new ResidentSet(0, 0, 0, 0, 0, 0);
    for (long each : pids) {
      try {
        sum = sum.plus(of(each));
      } catch (NoSuchFileException e) {
        if (each == pid) {
          throw e; // the measured process itself is gone; a descendant may just have exited
        }
      }
    }
    return sum;
  }

  private ResidentSet plus(ResidentSet other) {
    return new ResidentSet(
        vmRssBytes + other.vmRssBytes,
        anonBytes + other.anonBytes,
        fileBytes + other.fileBytes,
        shmemBytes + other.shmemBytes,
        threads + other.threads,
        processes + other.processes);
  }

  /**
   * Parses the text of a status file.
   *
   * @throws IllegalArgumentException if a line is missing or not in kB
   */
  public static ResidentSet parse(String status) {
    return new ResidentSet(
        kilobytes(status, "VmRSS") * 1024,
        kilobytes(status, "RssAnon") * 1024,
        kilobytes(status, "RssFile") * 1024,
        kilobytes(status, "RssShmem") * 1024,
        value(status, "Threads"),
        1);
  }

  private static long kilobytes(String status, String key) {
    String[] parts = line(status, key).split("\\s+");
    if (parts.length != 2 || !parts[1].equals("kB")) {
      throw new IllegalArgumentException("unexpected " + key + " line: '" + key + ": ...'");
    }
    return Long.parseLong(parts[0]);
  }

  private static long value(String status, String key) {
    return Long.parseLong(line(status, key));
  }

  private static String line(String status, String key) {
    for (String line : status.split("\n")) {
      if (line.startsWith(key + ":")) {
        return line.substring(key.length() + 1).trim();
      }
    }
    throw new IllegalArgumentException(
        "no " + key + " line in the status file (is this Linux, and is the process alive?)");
  }
}
