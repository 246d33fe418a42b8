package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * The field lines of a parsed head, as spans of the bytes they were parsed in: nothing is copied
 * until asked for. A head completed within one read views the loop's read slab and is valid only
 * until that read's callback returns; one completed from bytes held over from earlier reads views
 * its own exact-size copy. Names are compared ignoring ASCII case; values are trimmed of the
 * optional whitespace around them.
 */
public final class Fields {
  private static final int NAME_START = 0;
  private static final int NAME_END = 1;
  private static final int VALUE_START = 2;
  private static final int VALUE_END = 3;
  private static final int SPAN = 4;

  private final ByteBuffer source;
  private final int[] spans;
  private final int size;

  private Fields(ByteBuffer source, int[] spans, int size) {
    this.source = source;
    this.spans = spans;
    this.size = size;
  }

  /**
   * The fields of the validated lines between {@code from} (the first field line) and {@code end}
   * (just after the empty line that ends the head).
   */
  static Fields of(ByteBuffer source, int from, int end, int count) {
    int[] spans = new int[count * SPAN];
    int at = from;
    int i = 0;
    while (i < count) {
      int colon = at;
      while (source.get(colon) != ':') {
        colon++;
      }
      int valueStart = colon + 1;
      while (Ascii.whitespace(source.get(valueStart))) {
        valueStart++;
      }
      int lf = valueStart;
      while (source.get(lf) != Ascii.LF) {
        lf++;
      }
      int valueEnd = lf - 1; // before the CR
      while (valueEnd > valueStart && Ascii.whitespace(source.get(valueEnd - 1))) {
        valueEnd--;
      }
      int s = i * SPAN;
      spans[s + NAME_START] = at;
      spans[s + NAME_END] = colon;
      spans[s + VALUE_START] = valueStart;
      spans[s + VALUE_END] = valueEnd;
      i++;
      at = lf + 1;
    }
    if (at + 2 != end) {
      throw new IllegalStateException("field lines do not end where the head does");
    }
    return new Fields(source, spans, count);
  }

  /** How many field lines there are. */
  public int size() {
    return size;
  }

  /** The name of field {@code i}, as sent. */
  public String name(int i) {
    return Ascii.text(source, spans[i * SPAN + NAME_START], spans[i * SPAN + NAME_END]);
  }

  /** The value of field {@code i}, without the whitespace around it. */
  public String value(int i) {
    return Ascii.text(source, spans[i * SPAN + VALUE_START], spans[i * SPAN + VALUE_END]);
  }

  /** Whether field {@code i} is named {@code lowerCaseName} (compared ignoring ASCII case). */
  public boolean is(int i, String lowerCaseName) {
    return Ascii.equalsIgnoreCase(
        source, spans[i * SPAN + NAME_START], spans[i * SPAN + NAME_END], lowerCaseName);
  }

  /** Field {@code i}'s name in lower case. */
  String lowerName(int i) {
    int from = spans[i * SPAN + NAME_START];
    int to = spans[i * SPAN + NAME_END];
    char[] chars = new char[to - from];
    for (int k = 0; k < chars.length; k++) {
      chars[k] = (char) Ascii.lower(source.get(from + k));
    }
    return new String(chars);
  }

  /** How many fields are named {@code lowerCaseName}. */
  public int count(String lowerCaseName) {
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (is(i, lowerCaseName)) {
        n++;
      }
    }
    return n;
  }

  /** The value of the first field named {@code lowerCaseName}, or null. */
  public String first(String lowerCaseName) {
    for (int i = 0; i < size; i++) {
      if (is(i, lowerCaseName)) {
        return value(i);
      }
    }
    return null;
  }

  /**
   * Whether any field named {@code lowerCaseName} lists {@code lowerCaseToken} among its
   * comma-separated elements (ignoring case and the whitespace around elements).
   */
  public boolean hasToken(String lowerCaseName, String lowerCaseToken) {
    for (int i = 0; i < size; i++) {
      if (is(i, lowerCaseName) && listHas(i, lowerCaseToken)) {
        return true;
      }
    }
    return false;
  }

  private boolean listHas(int i, String token) {
    int at = spans[i * SPAN + VALUE_START];
    int end = spans[i * SPAN + VALUE_END];
    while (at <= end) {
      int comma = Ascii.elementEnd(source, at, end);
      int from = Ascii.trimStart(source, at, comma);
      int to = Ascii.trimEnd(source, from, comma);
      if (Ascii.equalsIgnoreCase(source, from, to, token)) {
        return true;
      }
      at = comma + 1;
    }
    return false;
  }

  /** The length of field {@code i} written as {@code name: value CRLF}, as sent. */
  int lineLength(int i) {
    return spans[i * SPAN + VALUE_END] - spans[i * SPAN + NAME_START] + 2;
  }

  /** Writes field {@code i}'s line (name to the end of its value, then CRLF) at {@code at}. */
  int copyLine(int i, byte[] out, int at) {
    int from = spans[i * SPAN + NAME_START];
    int length = spans[i * SPAN + VALUE_END] - from;
    source.get(from, out, at, length);
    out[at + length] = Ascii.CR;
    out[at + length + 1] = Ascii.LF;
    return at + length + 2;
  }

  int valueStart(int i) {
    return spans[i * SPAN + VALUE_START];
  }

  int valueEnd(int i) {
    return spans[i * SPAN + VALUE_END];
  }

  ByteBuffer source() {
    return source;
  }
}
