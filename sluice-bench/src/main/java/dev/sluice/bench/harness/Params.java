package dev.sluice.bench.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A run's options by name, as strings, with typed readers. The same values travel to both child
 * JVMs as {@code name=value} arguments, so parent and children read one set of options.
 */
public final class Params {
  private final Map<String, String> values;

  private Params(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** Params holding exactly {@code values}. */
  public static Params of(Map<String, String> values) {
    return new Params(values);
  }

  /** Parses {@code name=value} arguments, as a child receives them. */
  public static Params fromArgs(List<String> args) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected name=value, got '" + arg + "'");
      }
      values.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return new Params(values);
  }

  /** These params as {@code name=value} arguments. */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>();
    values.forEach((k, v) -> args.add(k + "=" + v));
    return args;
  }

  /** A copy with {@code name} set to {@code value}. */
  public Params with(String name, Object value) {
    Map<String, String> copy = new LinkedHashMap<>(values);
    copy.put(name, String.valueOf(value));
    return new Params(copy);
  }

  /** All values, in the order they were given. */
  public Map<String, String> asMap() {
    return values;
  }

  /** Whether {@code name} has a value. */
  public boolean has(String name) {
    return values.containsKey(name);
  }

  /**
   * The raw value of {@code name}.
   *
   * @throws IllegalArgumentException if it is missing
   */
  public String string(String name) {
    String value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing option --" + name);
    }
    return value;
  }

  /** {@code name} as a flag ({@link Option#flag}): {@code true} or {@code false}. */
  public boolean flag(String name) {
    String value = string(name);
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "--" + name + " is true or false, got '" + value + "'");
    };
  }

  /** {@code name} as a byte count; accepts suffixes k, m, g (binary: 1k = 1024). */
  public long bytes(String name) {
    return parseBytes(name, string(name));
  }

  /** {@code name} as an int byte count (see {@link #bytes}). */
  public int intBytes(String name) {
    long value = bytes(name);
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--" + name + " " + value + " is too large");
    }
    return (int) value;
  }

  /** {@code name} as a non-negative long. */
  public long count(String name) {
    return parseBytes(name, string(name));
  }

  /** {@code name} as a non-negative int. */
  public int intCount(String name) {
    return intBytes(name);
  }

  /** {@code name} as a comma-separated list of byte counts. */
  public List<Long> byteList(String name) {
    List<Long> result = new ArrayList<>();
    for (String part : string(name).split(",")) {
      result.add(parseBytes(name, part.trim()));
    }
    return result;
  }

  /**
   * Parses a byte count such as {@code 512}, {@code 4k}, {@code 16KiB}, {@code 1m} or {@code 2g}.
   *
   * @throws IllegalArgumentException naming the option and the value
   */
  public static long parseBytes(String name, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.endsWith("ib")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("b") && t.length() > 1 && !Character.isDigit(t.charAt(t.length() - 2))) {
      t = t.substring(0, t.length() - 1);
    }
    long multiplier = 1;
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'k' -> multiplier = 1L << 10;
        case 'm' -> multiplier = 1L << 20;
        case 'g' -> multiplier = 1L << 30;
        default -> multiplier = 1;
      }
      if (multiplier > 1) {
        t = t.substring(0, t.length() - 1);
      }
    }
    try {
      long value = Long.parseLong(t);
      if (value < 0) {
        throw new NumberFormatException("negative");
      }
      return Math.multiplyExact(value, multiplier);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "--"
              + name
              + " expects a non-negative number (suffixes k, m, g allowed), got '"
              + text
              + "'");
    }
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
