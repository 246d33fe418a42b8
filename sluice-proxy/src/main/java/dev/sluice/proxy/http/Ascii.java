package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/** The byte classes of RFC 9110 §5.6 that HTTP/1 heads are checked against. */
final class Ascii {
  private Ascii() {}

  static final byte CR = '\r';
  static final byte LF = '\n';
  static final byte SP = ' ';
  static final byte HTAB = '\t';

  private static final boolean[] TCHAR = new boolean[256];
  private static final boolean[] FIELD_VCHAR = new boolean[256];

  static {
    for (int c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (int c = 'a'; c <= 'z'; c++) {
      TCHAR[c] = true;
      TCHAR[c - 32] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
    for (int c = 0x21; c <= 0xff; c++) {
      FIELD_VCHAR[c] = c != 0x7f; // VCHAR and obs-text
    }
  }

  /** A token character: what method names and field names are made of. */
  static boolean tchar(int b) {
    return TCHAR[b & 0xff];
  }

  /** A visible character of a field value (obs-text included); SP and HTAB are allowed between. */
  static boolean fieldVchar(int b) {
    return FIELD_VCHAR[b & 0xff];
  }

  static boolean whitespace(int b) {
    return b == SP || b == HTAB;
  }

  static int lower(int b) {
    return b >= 'A' && b <= 'Z' ? b + 32 : b;
  }

  /**
   * Where the list element starting at {@code at} ends: the next comma before {@code end}, or end.
   */
  static int elementEnd(ByteBuffer b, int at, int end) {
    int comma = at;
    while (comma < end && b.get(comma) != ',') {
      comma++;
    }
    return comma;
  }

  /** {@code from} moved past the whitespace that starts {@code b[from, to)}. */
  static int trimStart(ByteBuffer b, int from, int to) {
    while (from < to && whitespace(b.get(from))) {
      from++;
    }
    return from;
  }

  /** {@code to} moved back over the whitespace that ends {@code b[from, to)}. */
  static int trimEnd(ByteBuffer b, int from, int to) {
    while (to > from && whitespace(b.get(to - 1))) {
      to--;
    }
    return to;
  }

  /** Whether {@code b[from, to)} equals {@code lowerCase} ignoring ASCII case. */
  static boolean equalsIgnoreCase(ByteBuffer b, int from, int to, String lowerCase) {
    if (to - from != lowerCase.length()) {
      return false;
    }
    for (int i = 0; i < lowerCase.length(); i++) {
      if (lower(b.get(from + i)) != lowerCase.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The bytes {@code b[from, to)} as ISO-8859-1 text (every byte one char, obs-text kept). */
  static String text(ByteBuffer b, int from, int to) {
    byte[] bytes = new byte[to - from];
    b.get(from, bytes);
    return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  /** A byte for a refusal reason: printable as itself, anything else in hex. */
  static String show(int b) {
    int c = b & 0xff;
    return c > 0x20 && c < 0x7f ? "'" + (char) c + "'" : String.format("0x%02x", c);
  }
}
