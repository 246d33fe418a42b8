package dev.sluice.bench.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON parser, so tests can check the report's shape as a consumer would. */
public final class JsonReader {
  private final String text;
  private int at;

  private JsonReader(String text) {
    this.text = text;
  }

  /** Parses one JSON value that must span all of {@code text}. */
  public static Object parse(String text) {
    JsonReader reader = new JsonReader(text);
    Object value = reader.value();
    reader.skipSpace();
    if (reader.at != text.length()) {
      throw reader.error("trailing text");
    }
    return value;
  }

  /** Parses a JSON object. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(String text) {
    return (Map<String, Object>) parse(text);
  }

  private Object value() {
    skipSpace();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    skipSpace();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      skipSpace();
      String key = string();
      skipSpace();
      expect(':');
      map.put(key, value());
      skipSpace();
      if (peek() == ',') {
        at++;
      } else {
        expect('}');
        return map;
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    skipSpace();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpace();
      if (peek() == ',') {
        at++;
      } else {
        expect(']');
        return list;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c == '\\') {
        char e = text.charAt(at++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 't' -> out.append('\t');
          case 'r' -> out.append('\r');
          case 'u' -> {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> out.append(e);
        }
      } else {
        out.append(c);
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    if (start == at) {
      throw error("expected a value");
    }
    return Double.parseDouble(text.substring(start, at));
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("expected " + word);
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void skipSpace() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at " + at + " in: " + text);
  }
}
