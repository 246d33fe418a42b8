package dev.sluice.proxy.admin;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;

/**
 * Writes values as JSON: records (their components, in order), maps, collections, strings, numbers,
 * booleans and null. Enough for the status model and the access log, without a JSON library in the
 * proxy.
 */
public final class Json {
  private Json() {}

  /** {@code value} as JSON. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder(256);
    write(out, value);
    return out.toString();
  }

  /** Appends {@code value} as JSON. */
  public static void write(StringBuilder out, Object value) {
    switch (value) {
      case null -> out.append("null");
      case String s -> quote(out, s);
      case Boolean b -> out.append(b);
      case Double d -> number(out, d);
      case Float f -> number(out, f);
      case Number n -> out.append(n);
      case Enum<?> e -> quote(out, e.name().toLowerCase(java.util.Locale.ROOT));
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          first = comma(out, first);
          quote(out, String.valueOf(e.getKey()));
          out.append(':');
          write(out, e.getValue());
        }
        out.append('}');
      }
      case Collection<?> items -> {
        out.append('[');
        boolean first = true;
        for (Object item : items) {
          first = comma(out, first);
          write(out, item);
        }
        out.append(']');
      }
      case Record record -> {
        out.append('{');
        boolean first = true;
        for (RecordComponent c : record.getClass().getRecordComponents()) {
          first = comma(out, first);
          quote(out, c.getName());
          out.append(':');
          try {
            write(out, c.getAccessor().invoke(record));
          } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c, e);
          }
        }
        out.append('}');
      }
      default -> quote(out, value.toString());
    }
  }

  /** Appends {@code s} as a JSON string. */
  public static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void number(StringBuilder out, double d) {
    if (Double.isFinite(d)) {
      out.append(
          d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
    } else {
      out.append("null");
    }
  }

  private static boolean comma(StringBuilder out, boolean first) {
    if (!first) {
      out.append(',');
    }
    return false;
  }
}
