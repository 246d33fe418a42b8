package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * Reads what a head's Content-Length and Transfer-Encoding fields say, refusing what two
 * implementations could read two ways (RFC 9112 §6, §11.2).
 */
final class FramingFields {
  private FramingFields() {}

  /** No Content-Length field. */
  static final long ABSENT = -1;

  /** A Content-Length that is not one valid length. */
  static final long INVALID = -2;

  /**
   * The length every Content-Length field (and every element of a list in one) agrees on; {@link
   * #ABSENT}; or {@link #INVALID} for an empty element, a non-digit (sign, space, hex), a value
   * beyond 63 bits or two values that differ. Identical values ({@code 5, 5} or two lines of 5) are
   * one length, as RFC 9110 §8.6 allows; the head is then forwarded with a single field.
   */
  static long contentLength(Fields fields) {
    long length = ABSENT;
    ByteBuffer b = fields.source();
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.is(i, "content-length")) {
        continue;
      }
      int at = fields.valueStart(i);
      int end = fields.valueEnd(i);
      while (true) {
        int comma = Ascii.elementEnd(b, at, end);
        int from = Ascii.trimStart(b, at, comma);
        int to = Ascii.trimEnd(b, from, comma);
        long value = digits(b, from, to);
        if (value < 0 || (length != ABSENT && value != length)) {
          return INVALID;
        }
        length = value;
        if (comma == end) {
          break;
        }
        at = comma + 1;
      }
    }
    return length;
  }

  private static long digits(ByteBuffer b, int from, int to) {
    if (from == to) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      int d = b.get(i) - '0';
      if (d < 0 || d > 9 || value > (Long.MAX_VALUE - d) / 10) {
        return -1;
      }
      value = value * 10 + d;
    }
    return value;
  }

  /** What the Transfer-Encoding fields, joined into one list, say. */
  enum Codings {
    /** No Transfer-Encoding field. */
    ABSENT,
    /** Known codings, chunked last and once. */
    CHUNKED_LAST,
    /** Known codings, chunked absent. */
    NOT_CHUNKED,
    /** chunked not last, or more than once. */
    CHUNKED_MISPLACED,
    /** A coding this proxy does not know. */
    UNKNOWN,
    /** An empty element, or parameters on a coding. */
    MALFORMED
  }

  static Codings transferCodings(Fields fields) {
    ByteBuffer b = fields.source();
    boolean any = false;
    boolean unknown = false;
    int chunkedSeen = 0;
    boolean chunkedLast = false;
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.is(i, "transfer-encoding")) {
        continue;
      }
      any = true;
      int at = fields.valueStart(i);
      int end = fields.valueEnd(i);
      while (true) {
        int comma = Ascii.elementEnd(b, at, end);
        int from = Ascii.trimStart(b, at, comma);
        int to = Ascii.trimEnd(b, from, comma);
        if (from == to) {
          return Codings.MALFORMED;
        }
        for (int k = from; k < to; k++) {
          if (!Ascii.tchar(b.get(k))) {
            return Codings.MALFORMED;
          }
        }
        if (Ascii.equalsIgnoreCase(b, from, to, "chunked")) {
          chunkedSeen++;
          chunkedLast = true;
        } else {
          chunkedLast = false;
          if (!known(b, from, to)) {
            unknown = true;
          }
        }
        if (comma == end) {
          break;
        }
        at = comma + 1;
      }
    }
    if (!any) {
      return Codings.ABSENT;
    }
    if (unknown) {
      return Codings.UNKNOWN;
    }
    if (chunkedSeen == 0) {
      return Codings.NOT_CHUNKED;
    }
    return chunkedSeen == 1 && chunkedLast ? Codings.CHUNKED_LAST : Codings.CHUNKED_MISPLACED;
  }

  private static boolean known(ByteBuffer b, int from, int to) {
    return Ascii.equalsIgnoreCase(b, from, to, "gzip")
        || Ascii.equalsIgnoreCase(b, from, to, "deflate")
        || Ascii.equalsIgnoreCase(b, from, to, "compress")
        || Ascii.equalsIgnoreCase(b, from, to, "x-gzip")
        || Ascii.equalsIgnoreCase(b, from, to, "x-compress");
  }
}
