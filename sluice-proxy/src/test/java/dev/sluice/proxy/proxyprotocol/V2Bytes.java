package dev.sluice.proxy.proxyprotocol;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Hand-built version 2 headers, each field as the test wants it (right or wrong). */
final class V2Bytes {
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private int versionCommand = 0x21;
  private int family = 0x11;
  private Integer length;

  static V2Bytes proxy(int family) {
    V2Bytes b = new V2Bytes();
    b.family = family;
    return b;
  }

  V2Bytes versionCommand(int value) {
    versionCommand = value;
    return this;
  }

  /** A declared length other than the body's. */
  V2Bytes length(int value) {
    length = value;
    return this;
  }

  V2Bytes bytes(int... values) {
    for (int v : values) {
      body.write(v);
    }
    return this;
  }

  V2Bytes bytes(byte[] values) {
    body.writeBytes(values);
    return this;
  }

  /** 192.0.2.1:40000 -> 198.51.100.7:443 */
  V2Bytes ipv4Addresses() {
    return bytes(192, 0, 2, 1, 198, 51, 100, 7, 40000 >> 8, 40000 & 0xff, 443 >> 8, 443 & 0xff);
  }

  /** [2001:db8::1]:40000 -> [2001:db8::2]:443 */
  V2Bytes ipv6Addresses() {
    byte[] a = new byte[36];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = (byte) 0xb8;
    a[15] = 1;
    a[16] = 0x20;
    a[17] = 0x01;
    a[18] = 0x0d;
    a[19] = (byte) 0xb8;
    a[31] = 2;
    a[32] = (byte) (40000 >> 8);
    a[33] = (byte) (40000 & 0xff);
    a[34] = 0x01;
    a[35] = (byte) 0xbb;
    return bytes(a);
  }

  V2Bytes tlv(int type, byte[] value) {
    bytes(type, value.length >> 8, value.length & 0xff);
    return bytes(value);
  }

  /** The header; with {@code crc}, a CRC32c TLV last, computed over the whole. */
  byte[] build(boolean crc) {
    if (crc) {
      bytes(Tlv.CRC32C, 0, 4, 0, 0, 0, 0);
    }
    byte[] b = body.toByteArray();
    ByteBuffer out = ByteBuffer.allocate(16 + b.length);
    out.put(ProxyHeaderParser.V2_SIGNATURE);
    out.put((byte) versionCommand).put((byte) family);
    out.putShort((short) (length != null ? length : b.length));
    out.put(b);
    byte[] all = out.array();
    if (crc) {
      CRC32C c = new CRC32C();
      c.update(all);
      ByteBuffer.wrap(all).putInt(all.length - 4, (int) c.getValue());
    }
    return all;
  }

  byte[] build() {
    return build(false);
  }
}
