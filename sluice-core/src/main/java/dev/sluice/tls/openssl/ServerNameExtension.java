package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The host name in the body of a ClientHello's server_name extension (RFC 6066, section 3), read by
 * the same rules as OpenSSL's own parser: a list that fills the extension, holding exactly one
 * entry, of type host_name, 1 to 255 bytes with no NUL. Read from the hello itself because OpenSSL
 * reports a resumed TLS 1.2 session's name instead of the one the client sent.
 */
final class ServerNameExtension {
  private static final int MAX_HOST_NAME = 255;

  private ServerNameExtension() {}

  /** What the extension says. */
  sealed interface Result {}

  /** The name asked for, byte for byte (ISO-8859-1, so that no byte is lost). */
  record Name(String host) implements Result {}

  /** Not an extension OpenSSL would take, and why. */
  record Malformed(String why) implements Result {}

  static Result parse(MemorySegment body) {
    long size = body.byteSize();
    if (size < 2) {
      return new Malformed("a server_name extension of " + size + " B");
    }
    int list = u16(body, 0);
    if (list != size - 2 || list == 0) {
      return new Malformed(
          "a server_name list of " + list + " B in an extension of " + size + " B");
    }
    if (list < 3 || body.get(JAVA_BYTE, 2) != OpenSsl.TLSEXT_NAMETYPE_HOST_NAME) {
      return new Malformed("a server_name list that holds no host_name");
    }
    int length = u16(body, 3);
    if (length != list - 3) {
      return new Malformed("a server_name list of more than one name, or a truncated one");
    }
    if (length == 0 || length > MAX_HOST_NAME) {
      return new Malformed("a host name of " + length + " B (1 to " + MAX_HOST_NAME + ")");
    }
    byte[] name = body.asSlice(5, length).toArray(JAVA_BYTE);
    for (byte b : name) {
      if (b == 0) {
        return new Malformed("a host name with a NUL byte");
      }
    }
    return new Name(new String(name, StandardCharsets.ISO_8859_1));
  }

  private static int u16(MemorySegment body, long at) {
    return ((body.get(JAVA_BYTE, at) & 0xff) << 8) | (body.get(JAVA_BYTE, at + 1) & 0xff);
  }
}
