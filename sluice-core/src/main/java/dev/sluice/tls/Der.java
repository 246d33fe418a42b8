package dev.sluice.tls;

import java.math.BigInteger;

/**
 * The little DER that private-key formats need (PKCS#1, SEC1 and the PKCS#8 algorithm identifier)
 * and OCSP: tag-length-value walking, integers, octet strings and object identifiers; and {@link
 * #encode} for the one structure Sluice writes, an OCSP request.
 */
final class Der {
  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int OID = 0x06;
  static final int NULL = 0x05;
  static final int ENUMERATED = 0x0a;
  static final int GENERALIZED_TIME = 0x18;
  static final int SEQUENCE = 0x30;
  static final int CONTEXT_0 = 0xa0;

  /** One element: {@code tag}, its length, then {@code contents} one after another. */
  static byte[] encode(int tag, byte[]... contents) {
    int length = 0;
    for (byte[] part : contents) {
      length += part.length;
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(length + 5);
    out.write(tag);
    if (length < 0x80) {
      out.write(length);
    } else {
      int octets = length < 0x100 ? 1 : length < 0x10000 ? 2 : 3;
      out.write(0x80 | octets);
      for (int i = octets - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    for (byte[] part : contents) {
      out.write(part, 0, part.length);
    }
    return out.toByteArray();
  }

  /** One element: its tag and where its content lies in {@code source}. */
  record Element(int tag, byte[] source, int offset, int length) {
    Reader contents() {
      return new Reader(source, offset, offset + length);
    }

    byte[] bytes() {
      byte[] out = new byte[length];
      System.arraycopy(source, offset, out, 0, length);
      return out;
    }

    BigInteger integer() {
      expect(INTEGER);
      return new BigInteger(bytes());
    }

    /** An object identifier in dotted form. */
    String oid() {
      expect(OID);
      StringBuilder dotted = new StringBuilder();
      long value = 0;
      boolean first = true;
      for (int i = offset; i < offset + length; i++) {
        value = (value << 7) | (source[i] & 0x7f);
        if ((source[i] & 0x80) == 0) {
          if (first) {
            long top = Math.min(value / 40, 2);
            dotted.append(top).append('.').append(value - top * 40);
            first = false;
          } else {
            dotted.append('.').append(value);
          }
          value = 0;
        }
      }
      return dotted.toString();
    }

    Element expect(int wanted) {
      if (tag != wanted) {
        throw new IllegalArgumentException(
            String.format("malformed DER: expected tag 0x%02x, found 0x%02x", wanted, tag));
      }
      return this;
    }
  }

  /** Walks the elements between two offsets. */
  static final class Reader {
    private final byte[] source;
    private final int end;
    private int at;

    Reader(byte[] source, int from, int end) {
      this.source = source;
      this.at = from;
      this.end = end;
    }

    Reader(byte[] source) {
      this(source, 0, source.length);
    }

    boolean hasMore() {
      return at < end;
    }

    Element next() {
      if (at + 2 > end) {
        throw new IllegalArgumentException("malformed DER: truncated element");
      }
      int tag = source[at++] & 0xff;
      int length = source[at++] & 0xff;
      if (length >= 0x80) {
        int octets = length & 0x7f;
        if (octets == 0 || octets > 3 || at + octets > end) {
          throw new IllegalArgumentException("malformed DER: bad length");
        }
        length = 0;
        for (int i = 0; i < octets; i++) {
          length = (length << 8) | (source[at++] & 0xff);
        }
      }
      if (length > end - at) {
        throw new IllegalArgumentException("malformed DER: element runs past its container");
      }
      Element element = new Element(tag, source, at, length);
      at += length;
      return element;
    }
  }

  private Der() {}
}
