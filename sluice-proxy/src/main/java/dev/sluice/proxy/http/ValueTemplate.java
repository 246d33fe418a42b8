package dev.sluice.proxy.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A configured header value that may name facts of the connection: {@code ${client_ip}}, {@code
 * ${client_port}}, {@code ${sni}}, {@code ${alpn}}, {@code ${ja3}}, {@code ${ja4}}; {@code $$} is a
 * dollar sign. A value naming a fact the connection does not have (no SNI on plain HTTP) is not set
 * at all, and neither is one whose expansion is not a valid field value (an ALPN protocol may be
 * any bytes): a header is never made of bytes the client chose to break the head with.
 */
public final class ValueTemplate {
  /** The facts a value may name. */
  public enum Variable {
    CLIENT_IP,
    CLIENT_PORT,
    SNI,
    ALPN,
    JA3,
    JA4;

    String text() {
      return "${" + name().toLowerCase(Locale.ROOT) + "}";
    }
  }

  /** Literal text (a String) and variables, in order. */
  private final List<Object> parts;

  private final String source;

  private ValueTemplate(String source, List<Object> parts) {
    this.source = source;
    this.parts = parts;
  }

  /**
   * Parses {@code value}.
   *
   * @throws IllegalArgumentException for an unknown or unclosed {@code ${...}} or a character a
   *     field value cannot hold, saying which
   */
  public static ValueTemplate parse(String value) {
    List<Object> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > 0xff || (!Ascii.fieldVchar(c) && !Ascii.whitespace(c))) {
        throw new IllegalArgumentException(
            "a character " + Ascii.show(c) + " that a header value cannot hold in '" + value + "'");
      }
      if (c == '$' && i + 1 < value.length() && value.charAt(i + 1) == '$') {
        literal.append('$');
        i++;
      } else if (c == '$' && i + 1 < value.length() && value.charAt(i + 1) == '{') {
        int close = value.indexOf('}', i);
        if (close < 0) {
          throw new IllegalArgumentException("an unclosed ${ in '" + value + "'");
        }
        String name = value.substring(i + 2, close);
        Variable variable = null;
        for (Variable v : Variable.values()) {
          if (v.name().toLowerCase(Locale.ROOT).equals(name)) {
            variable = v;
          }
        }
        if (variable == null) {
          throw new IllegalArgumentException(
              "an unknown variable ${"
                  + name
                  + "} in '"
                  + value
                  + "' (client_ip, client_port, sni, alpn, ja3, ja4)");
        }
        if (!literal.isEmpty()) {
          parts.add(literal.toString());
          literal.setLength(0);
        }
        parts.add(variable);
        i = close;
      } else {
        literal.append(c);
      }
    }
    if (!literal.isEmpty()) {
      parts.add(literal.toString());
    }
    if (value.strip().length() != value.length()) {
      throw new IllegalArgumentException("whitespace around the header value '" + value + "'");
    }
    return new ValueTemplate(value, List.copyOf(parts));
  }

  /** The value for a connection with these facts, or null when it is not to be set. */
  public String expand(ConnectionFacts facts) {
    if (parts.size() == 1 && parts.getFirst() instanceof String text) {
      return text;
    }
    StringBuilder out = new StringBuilder();
    for (Object part : parts) {
      if (part instanceof Variable variable) {
        String fact = facts.fact(variable);
        if (fact == null) {
          return null;
        }
        for (int i = 0; i < fact.length(); i++) {
          char c = fact.charAt(i);
          if (c > 0xff || (!Ascii.fieldVchar(c) && !Ascii.whitespace(c))) {
            return null;
          }
        }
        out.append(fact);
      } else {
        out.append((String) part);
      }
    }
    String value = out.toString();
    return value.strip().length() == value.length() ? value : null;
  }

  @Override
  public String toString() {
    return source;
  }
}
