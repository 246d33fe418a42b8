package dev.sluice.bench.harness;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of the parent-child protocol: a word and {@code key=value} fields, e.g. {@code DONE
 * wallMs=812 integrity=OK}. Values are URL-encoded, so any text fits on one line.
 *
 * @param word what happened or what to do (upper case by convention)
 * @param fields the details, in order
 */
public record Message(String word, Map<String, String> fields) {

  /** Reports a failure in a child; the parent turns it into an exception. */
  public static final String ERROR = "ERROR";

  public Message {
    if (word.isEmpty() || word.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("a message word must be one token: '" + word + "'");
    }
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /** A message from a word and alternating keys and values. */
  public static Message of(String word, Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must come in pairs");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      fields.put(String.valueOf(keysAndValues[i]), String.valueOf(keysAndValues[i + 1]));
    }
    return new Message(word, fields);
  }

  /** Parses one protocol line. */
  public static Message parse(String line) {
    String[] tokens = line.trim().split("\\s+");
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < tokens.length; i++) {
      int eq = tokens[i].indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("malformed protocol line: " + line);
      }
      fields.put(decode(tokens[i].substring(0, eq)), decode(tokens[i].substring(eq + 1)));
    }
    return new Message(tokens[0], fields);
  }

  /** This message as one protocol line (no line break). */
  public String format() {
    StringBuilder line = new StringBuilder(word);
    fields.forEach((k, v) -> line.append(' ').append(encode(k)).append('=').append(encode(v)));
    return line.toString();
  }

  /**
   * The value of {@code key}.
   *
   * @throws IllegalStateException naming the message when it is missing
   */
  public String field(String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalStateException("protocol message lacks '" + key + "': " + format());
    }
    return value;
  }

  /** The value of {@code key} as a number. */
  public double number(String key) {
    return Double.parseDouble(field(key));
  }

  /** The value of {@code key} as a long. */
  public long longValue(String key) {
    return Long.parseLong(field(key));
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
