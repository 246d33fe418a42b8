package dev.sluice.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process's mappings with their resident bytes, from {@code /proc/PID/smaps}, read from outside
 * the process: what of its RSS is where. The kernel counts every resident page of a mapping in
 * {@code Rss}; {@code Anonymous} is the part not backed by a file (private pages, including a file
 * mapping's copied-on-write ones).
 *
 * @param mappings the mappings in address order
 */
public record Smaps(List<Mapping> mappings) {
  private static final Pattern HEADER = Pattern.compile("^([0-9a-f]+)-([0-9a-f]+) (\\S+) .*");

  public Smaps {
    mappings = List.copyOf(mappings);
  }

  /**
   * One mapping.
   *
   * @param start first address
   * @param end address after the last
   * @param permissions as smaps gives them ({@code rw-p})
   * @param path the file or pseudo-file ({@code [heap]}, {@code [stack]}), empty when anonymous
   * @param rssBytes resident bytes
   * @param anonymousBytes resident bytes not backed by a file
   */
  public record Mapping(
      long start, long end, String permissions, String path, long rssBytes, long anonymousBytes) {}

  /** Reads {@code /proc/PID/smaps}. */
  public static Smaps read(long pid) throws IOException {
    return parse(Files.readString(Path.of("/proc", Long.toString(pid), "smaps")));
  }

  /**
   * Parses the text of an smaps file.
   *
   * @throws IllegalArgumentException if a mapping lacks its Rss or Anonymous line
   */
  public static Smaps parse(String text) {
    List<Mapping> mappings = new ArrayList<>();
    long start = 0;
    long end = 0;
    String permissions = null;
    String path = "";
    long rss = -1;
    long anonymous = -1;
    for (String line : text.split("\n")) {
      Matcher header = HEADER.matcher(line);
      if (header.matches()) {
        if (permissions != null) {
          mappings.add(mapping(start, end, permissions, path, rss, anonymous));
        }
        start = Long.parseUnsignedLong(header.group(1), 16);
        end = Long.parseUnsignedLong(header.group(2), 16);
        permissions = header.group(3);
        String[] fields = line.trim().split("\\s+", 6);
        path = fields.length == 6 ? fields[5] : "";
        rss = -1;
        anonymous = -1;
      } else if (line.startsWith("Rss:")) {
        rss = kilobytes(line);
      } else if (line.startsWith("Anonymous:")) {
        anonymous = kilobytes(line);
      }
    }
    if (permissions != null) {
      mappings.add(mapping(start, end, permissions, path, rss, anonymous));
    }
    return new Smaps(mappings);
  }

  /** Resident bytes of every mapping. */
  public long rssBytes() {
    return mappings.stream().mapToLong(Mapping::rssBytes).sum();
  }

  /**
   * Resident bytes of the mappings inside {@code range}.
   *
   * @throws IllegalStateException if a mapping lies partly inside it (its pages cannot be told
   *     apart)
   */
  public long rssWithin(AddressRange range) {
    long bytes = 0;
    for (Mapping m : mappings) {
      if (range.contains(m.start(), m.end())) {
        bytes += m.rssBytes();
      } else if (range.overlaps(m.start(), m.end())) {
        throw new IllegalStateException(
            "mapping "
                + new AddressRange(m.start(), m.end()).format()
                + " lies partly inside "
                + range.format());
      }
    }
    return bytes;
  }

  /** Anonymous resident bytes of the mappings outside every one of {@code ranges}. */
  public long anonymousOutside(List<AddressRange> ranges) {
    return outside(ranges).mapToLong(Mapping::anonymousBytes).sum();
  }

  /** File-backed resident bytes (Rss minus Anonymous) of the mappings outside {@code ranges}. */
  public long fileBackedOutside(List<AddressRange> ranges) {
    return outside(ranges).mapToLong(m -> m.rssBytes() - m.anonymousBytes()).sum();
  }

  private java.util.stream.Stream<Mapping> outside(List<AddressRange> ranges) {
    return mappings.stream()
        .filter(m -> ranges.stream().noneMatch(r -> r.overlaps(m.start(), m.end())));
  }

  private static Mapping mapping(
      long start, long end, String permissions, String path, long rss, long anonymous) {
    if (rss < 0 || anonymous < 0) {
      throw new IllegalArgumentException(
          "no Rss or Anonymous line for mapping " + new AddressRange(start, end).format());
    }
    return new Mapping(start, end, permissions, path, rss, anonymous);
  }

  private static long kilobytes(String line) {
    String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
    if (parts.length != 2 || !parts[1].equals("kB")) {
      throw new IllegalArgumentException("unexpected smaps line: '" + line + "'");
    }
    return Long.parseLong(parts[0]) * 1024;
  }
}
