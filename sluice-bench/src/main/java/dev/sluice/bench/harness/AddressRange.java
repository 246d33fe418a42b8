package dev.sluice.bench.harness;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A range of virtual addresses, {@code [start, end)}: where a JVM keeps its Java heap or its code
 * cache, as the JVM itself reports it, so that the harness can tell those mappings apart in {@code
 * /proc/PID/smaps}.
 */
public record AddressRange(long start, long end) {

  public AddressRange {
    if (Long.compareUnsigned(start, end) > 0) {
      throw new IllegalArgumentException("an address range ends before it starts");
    }
  }

  /** Whether {@code [from, to)} lies wholly inside this range. */
  public boolean contains(long from, long to) {
    return Long.compareUnsigned(from, start) >= 0 && Long.compareUnsigned(to, end) <= 0;
  }

  /** Whether {@code [from, to)} shares at least one address with this range. */
  public boolean overlaps(long from, long to) {
    return Long.compareUnsigned(from, end) < 0 && Long.compareUnsigned(to, start) > 0;
  }

  /** {@code 0x...-0x...}, as {@link #parse} reads it. */
  public String format() {
    return "0x" + Long.toHexString(start) + "-0x" + Long.toHexString(end);
  }

  /** Parses {@code 0xSTART-0xEND} (hexadecimal, the {@code 0x} optional). */
  public static AddressRange parse(String text) {
    String[] parts = text.trim().split("-");
    if (parts.length != 2) {
      throw new IllegalArgumentException("expected 0xSTART-0xEND, got '" + text + "'");
    }
    return new AddressRange(hex(parts[0]), hex(parts[1]));
  }

  /** Parses a comma-separated list of {@link #parse} ranges (empty text: none). */
  public static List<AddressRange> parseList(String text) {
    List<AddressRange> ranges = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        ranges.add(parse(part));
      }
    }
    return ranges;
  }

  /** {@code ranges} as {@link #parseList} reads them. */
  public static String formatList(List<AddressRange> ranges) {
    return String.join(",", ranges.stream().map(AddressRange::format).toList());
  }

  /** A hexadecimal address, with or without {@code 0x}. */
  public static long hex(String text) {
    String digits = text.trim();
    if (digits.startsWith("0x") || digits.startsWith("0X")) {
      digits = digits.substring(2);
    }
    if (digits.isEmpty() || digits.length() > 16) {
      throw new IllegalArgumentException("not an address: '" + text + "'");
    }
    return HexFormat.fromHexDigitsToLong(digits);
  }
}
