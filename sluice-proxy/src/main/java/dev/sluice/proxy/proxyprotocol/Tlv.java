package dev.sluice.proxy.proxyprotocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One type-length-value extension of a version 2 header (or a sub-TLV of {@link #SSL}). The value
 * is copied in and out: headers are tiny, and a record must not share a mutable array.
 *
 * @param type 0..255
 */
public record Tlv(int type, byte[] value) {
  /** The application protocol (ALPN) the sender negotiated with the client. */
  public static final int ALPN = 0x01;

  /** The host name the client asked for (its TLS SNI). */
  public static final int AUTHORITY = 0x02;

  /** A CRC32c of the whole header, with this value zero while it is computed. */
  public static final int CRC32C = 0x03;

  /** Padding, to be skipped. */
  public static final int NOOP = 0x04;

  /** An opaque connection id. */
  public static final int UNIQUE_ID = 0x05;

  /** What the sender knew of the client's TLS: see {@link SslInfo}. */
  public static final int SSL = 0x20;

  /** In {@link #SSL}: the protocol version, e.g. {@code TLSv1.3}. */
  public static final int SSL_VERSION = 0x21;

  /** In {@link #SSL}: the client certificate's subject common name. */
  public static final int SSL_CN = 0x22;

  /** In {@link #SSL}: the cipher suite. */
  public static final int SSL_CIPHER = 0x23;

  /** In {@link #SSL}: the client certificate's signature algorithm. */
  public static final int SSL_SIG_ALG = 0x24;

  /** In {@link #SSL}: the client certificate's key algorithm. */
  public static final int SSL_KEY_ALG = 0x25;

  /** The network namespace the connection was accepted in. */
  public static final int NETNS = 0x30;

  public Tlv {
    if (type < 0 || type > 0xff) {
      throw new IllegalArgumentException("a TLV type is one byte, not " + type);
    }
    if (value.length > 0xffff) {
      throw new IllegalArgumentException("a TLV value is at most 65535 B, not " + value.length);
    }
    value = value.clone();
  }

  /** A TLV holding {@code text} in UTF-8. */
  public static Tlv text(int type, String text) {
    return new Tlv(type, text.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** The value's length in bytes. */
  public int length() {
    return value.length;
  }

  /** The value as UTF-8 text. */
  public String text() {
    return ProxyHeader.utf8(value);
  }

  /** The value's bytes, unshared, for the encoder in this package. */
  byte[] raw() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tlv t && t.type == type && Arrays.equals(t.value, value);
  }

  @Override
  public int hashCode() {
    return 31 * type + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return String.format("tlv 0x%02x=%s", type, HexFormat.of().formatHex(value));
  }
}
