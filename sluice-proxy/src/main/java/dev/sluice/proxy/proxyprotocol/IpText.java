package dev.sluice.proxy.proxyprotocol;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * IP addresses as text, strictly and without the resolver: version 1 headers carry them, and {@code
 * InetAddress.getByName} would accept host names (a DNS lookup on the loop), leading zeros and zone
 * ids that the PROXY protocol does not. The configuration reads its address literals here too: the
 * resolver also reads inet_aton's short forms ({@code 127.1}, {@code 0x7f000001}, octal {@code
 * 010.0.0.1}) as other addresses than an operator means.
 */
public final class IpText {
  private IpText() {}

  /**
   * The 4 bytes of a dotted quad or the 16 of an IPv6 address (the forms below: no zone, no
   * brackets, no short forms), or null.
   */
  public static byte[] parse(String text) {
    byte[] b = text.getBytes(StandardCharsets.ISO_8859_1); // anything else becomes '?': refused
    return text.indexOf(':') >= 0 ? parseIpv6(b, 0, b.length) : parseIpv4(b, 0, b.length);
  }

  /**
   * The 4 bytes of a dotted quad ({@code 192.0.2.1}: four decimal numbers 0..255 without leading
   * zeros), or null.
   */
  static byte[] parseIpv4(byte[] text, int from, int to) {
    byte[] out = new byte[4];
    int part = 0;
    int i = from;
    while (true) {
      int start = i;
      int value = 0;
      while (i < to && i - start < 3 && text[i] >= '0' && text[i] <= '9') {
        value = value * 10 + (text[i] - '0');
        i++;
      }
      int digits = i - start;
      if (digits == 0 || value > 255 || (digits > 1 && text[start] == '0')) {
        return null;
      }
      out[part++] = (byte) value;
      if (part == 4) {
        return i == to ? out : null;
      }
      if (i >= to || text[i] != '.') {
        return null;
      }
      i++;
    }
  }

  /**
   * The 16 bytes of an IPv6 address in RFC 4291 text (up to eight groups of 1..4 hex digits, one
   * {@code ::} at most, an optional dotted quad in the last 32 bits; no zone, no brackets), or
   * null.
   */
  static byte[] parseIpv6(byte[] text, int from, int to) {
    byte[] out = new byte[16];
    int groups = 0;
    int gap = -1; // the group index where "::" stands
    int i = from;
    if (to - from >= 2 && text[i] == ':' && text[i + 1] == ':') {
      gap = 0;
      i += 2;
      if (i == to) {
        return out; // "::"
      }
    } else if (i < to && text[i] == ':') {
      return null; // a single leading colon
    }
    while (i < to) {
      if (groups == 8) {
        return null;
      }
      int start = i;
      int value = 0;
      while (i < to && i - start < 4 && hex(text[i]) >= 0) {
        value = value << 4 | hex(text[i]);
        i++;
      }
      if (i < to && text[i] == '.') {
        // A dotted quad ends the address and fills two groups.
        if (groups > 6) {
          return null;
        }
        byte[] v4 = parseIpv4(text, start, to);
        if (v4 == null) {
          return null;
        }
        System.arraycopy(v4, 0, out, groups * 2, 4);
        groups += 2;
        i = to;
        break;
      }
      if (i == start) {
        return null; // an empty group or a character that is not hex
      }
      out[groups * 2] = (byte) (value >> 8);
      out[groups * 2 + 1] = (byte) value;
      groups++;
      if (i == to) {
        break;
      }
      if (text[i] != ':') {
        return null;
      }
      i++;
      if (i < to && text[i] == ':') {
        if (gap >= 0) {
          return null; // a second "::"
        }
        gap = groups;
        i++;
        if (i == to) {
          break;
        }
      } else if (i == to) {
        return null; // a trailing single colon
      }
    }
    if (gap < 0) {
      return groups == 8 ? out : null;
    }
    if (groups == 8) {
      return null; // "::" must stand for at least one group
    }
    // Move the groups after the gap to the end.
    int tail = (groups - gap) * 2;
    System.arraycopy(out, gap * 2, out, 16 - tail, tail);
    java.util.Arrays.fill(out, gap * 2, 16 - tail, (byte) 0);
    return out;
  }

  private static int hex(byte c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  /** The address for {@code bytes} (4 or 16); an IPv4-mapped IPv6 address becomes IPv4. */
  static InetAddress address(byte[] bytes) {
    try {
      return InetAddress.getByAddress(bytes); // no lookup: a literal
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not 4 or 16 bytes: " + bytes.length, e);
    }
  }

  /**
   * {@code address} as text without a zone: a dotted quad for IPv4, RFC 5952 for IPv6 (lower case,
   * the longest run of zero groups as {@code ::}).
   */
  static String format(InetAddress address) {
    byte[] b = address.getAddress();
    if (b.length == 4) {
      return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
    }
    return formatIpv6(b);
  }

  /** IPv6 text for 16 bytes; the IPv4-mapped range is written {@code ::ffff:a.b.c.d}. */
  public static String formatIpv6(byte[] b) {
    if (isMapped(b)) {
      return "::ffff:"
          + (b[12] & 0xff)
          + "."
          + (b[13] & 0xff)
          + "."
          + (b[14] & 0xff)
          + "."
          + (b[15] & 0xff);
    }
    int[] g = new int[8];
    for (int i = 0; i < 8; i++) {
      g[i] = (b[2 * i] & 0xff) << 8 | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not shortened
    for (int i = 0; i < 8; ) {
      if (g[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder s = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        s.append("::");
        i += bestLength - 1;
        continue;
      }
      if (!s.isEmpty() && s.charAt(s.length() - 1) != ':') {
        s.append(':');
      }
      s.append(Integer.toHexString(g[i]));
    }
    return s.toString();
  }

  /** The 16-byte form of an address: IPv4 as IPv4-mapped IPv6. */
  static byte[] sixteen(InetAddress address) {
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      byte[] mapped = new byte[16];
      mapped[10] = (byte) 0xff;
      mapped[11] = (byte) 0xff;
      System.arraycopy(b, 0, mapped, 12, 4);
      return mapped;
    }
    return b;
  }

  private static boolean isMapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
  }
}
