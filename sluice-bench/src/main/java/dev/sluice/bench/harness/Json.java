package dev.sluice.bench.harness;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Map;

/** A minimal JSON writer for the report: maps, lists, strings, numbers, booleans and null. */
public final class Json {
  private Json() {}

  /** {@code value} as compact JSON on one line. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value) {
    switch (value) {
      case null -> out.append("null");
      case String s -> appendString(out, s);
      case Boolean b -> out.append(b);
      case Double d -> appendNumber(out, d);
      case Float f -> appendNumber(out, f.doubleValue());
      case Number n -> out.append(n.longValue());
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          appendString(out, String.valueOf(e.getKey()));
          out.append(':');
          append(out, e.getValue());
        }
        out.append('}');
      }
      case List<?> list -> {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          append(out, list.get(i));
        }
        out.append(']');
      }
      default -> appendString(out, value.toString());
    }
  }

  /** Integral values print without a fraction; others with six significant digits. */
  private static void appendNumber(StringBuilder out, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      out.append("null");
    } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      out.append((long) d);
    } else {
      out.append(new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString());
    }
  }

  private static void appendString(StringBuilder out, String s) {
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
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
