package dev.sluice.proxy.proxyprotocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The value of a {@link Tlv#SSL} TLV: whether the client spoke TLS to the sender, whether it
 * presented a certificate and whether that verified, and sub-TLVs (version, certificate subject CN,
 * cipher...).
 *
 * @param client the PP2_CLIENT_* bits
 * @param verify 0 when the client presented a certificate and it verified, anything else otherwise
 * @param tlvs the sub-TLVs, in order
 */
public record SslInfo(int client, long verify, List<Tlv> tlvs) {
  /** The client connected over TLS. */
  public static final int CLIENT_SSL = 0x01;

  /** The client presented a certificate over this connection. */
  public static final int CLIENT_CERT_CONN = 0x02;

  /** The client presented a certificate at least once over this TLS session. */
  public static final int CLIENT_CERT_SESS = 0x04;

  public SslInfo {
    if (client < 0 || client > 0xff) {
      throw new IllegalArgumentException("the client field is one byte, not " + client);
    }
    if (verify < 0 || verify > 0xffff_ffffL) {
      throw new IllegalArgumentException("the verify field is 32 bits, not " + verify);
    }
    tlvs = List.copyOf(tlvs);
  }

  /** Whether the client presented a certificate and it verified. */
  public boolean verifiedCertificate() {
    return (client & (CLIENT_CERT_CONN | CLIENT_CERT_SESS)) != 0 && verify == 0;
  }

  /** The text of the first sub-TLV of {@code type}, or null. */
  public String text(int type) {
    for (Tlv tlv : tlvs) {
      if (tlv.type() == type) {
        return tlv.text();
      }
    }
    return null;
  }

  /** The verified client certificate's subject CN, or null. */
  public String commonName() {
    return text(Tlv.SSL_CN);
  }

  /** The TLS version, or null. */
  public String version() {
    return text(Tlv.SSL_VERSION);
  }

  /**
   * Reads a value already checked by {@link ProxyHeaderParser} (at least 5 bytes, sub-TLVs within
   * it).
   */
  static SslInfo parse(byte[] value) {
    ByteBuffer b = ByteBuffer.wrap(value);
    int client = b.get() & 0xff;
    long verify = b.getInt() & 0xffff_ffffL;
    List<Tlv> tlvs = new ArrayList<>(2);
    while (b.remaining() >= 3) {
      int type = b.get() & 0xff;
      byte[] sub = new byte[b.getShort() & 0xffff];
      b.get(sub);
      tlvs.add(new Tlv(type, sub));
    }
    return new SslInfo(client, verify, tlvs);
  }

  /** The TLV's value. */
  byte[] encode() {
    int length = 5;
    for (Tlv tlv : tlvs) {
      length += 3 + tlv.length();
    }
    ByteBuffer b = ByteBuffer.allocate(length);
    b.put((byte) client).putInt((int) verify);
    for (Tlv tlv : tlvs) {
      b.put((byte) tlv.type()).putShort((short) tlv.length()).put(tlv.raw());
    }
    return b.array();
  }

  /** As a TLV of type {@link Tlv#SSL}. */
  public Tlv toTlv() {
    return new Tlv(Tlv.SSL, encode());
  }
}
