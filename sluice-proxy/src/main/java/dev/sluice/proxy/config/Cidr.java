package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.IpText;
import java.net.InetAddress;
import java.util.regex.Pattern;

/** A network: an address and a prefix length ({@code 10.0.0.0/8}, {@code ::1/128}). */
public record Cidr(byte[] network, int prefix, String text) {
  private static final Pattern PREFIX = Pattern.compile("0|[1-9][0-9]{0,2}");
  private static final Pattern SHORT_IPV4 = Pattern.compile("[0-9]+(\\.[0-9]+){0,2}");

  /**
   * Parses {@code a.b.c.d/n} or {@code v6/n}; a bare address is a single host (/32, /128). Strict,
   * without the resolver: a dotted quad has four decimal numbers 0..255 without leading zeros (the
   * resolver reads {@code 010} as octal and {@code 127/8} as 0.0.0.127), IPv6 is RFC 4291 text
   * ({@code ::}, {@code ::ffff:10.0.0.0/104}, which is 10.0.0.0/8: the JDK reports an IPv4 client
   * of a dual-stack socket as IPv4) without a zone; the prefix is a decimal 0..32 or 0..128 without
   * leading zeros; and no bit past the prefix may be set ({@code 10.0.0.1/8} is refused: it names a
   * host, and the network it would match is 10.0.0.0/8).
   *
   * @throws IllegalArgumentException saying what is wrong and what is accepted
   */
  public static Cidr parse(String text) {
    String t = text.strip();
    int slash = t.indexOf('/');
    String address = slash < 0 ? t : t.substring(0, slash);
    byte[] bytes = IpText.parse(address);
    if (bytes == null) {
      throw new IllegalArgumentException("'" + text + "' is not a network: " + whyNot(address));
    }
    int bits = bytes.length * 8;
    int prefix = bits;
    if (slash >= 0) {
      String digits = t.substring(slash + 1);
      if (!PREFIX.matcher(digits).matches()) {
        throw new IllegalArgumentException(
            "'"
                + text
                + "': the prefix length is not a number 0.."
                + bits
                + (digits.matches("0[0-9]+") ? " (no leading zeros)" : ""));
      }
      prefix = Integer.parseInt(digits);
      if (prefix > bits) {
        throw new IllegalArgumentException("'" + text + "': the prefix length must be 0.." + bits);
      }
    }
    byte[] masked = masked(bytes, prefix);
    if (!java.util.Arrays.equals(masked, bytes)) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' has host bits set past the /"
              + prefix
              + ": write the network, "
              + format(masked)
              + "/"
              + prefix
              + ", or one host as "
              + address
              + "/"
              + bits);
    }
    if (bytes.length == 16 && prefix >= 96 && isMapped(bytes)) {
      // The JDK reports a dual-stack socket's IPv4 clients as IPv4: match them as such.
      return new Cidr(java.util.Arrays.copyOfRange(bytes, 12, 16), prefix - 96, t);
    }
    return new Cidr(bytes, prefix, t);
  }

  private static boolean isMapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
  }

  private static String whyNot(String address) {
    if (address.isEmpty()) {
      return "no address before the '/' (use 10.0.0.0/8 or fd00::/8)";
    }
    if (address.indexOf('%') >= 0) {
      return "a zone (%name) picks an interface for a link-local address; a network has none";
    }
    if (address.startsWith("[")) {
      return "write an IPv6 network without brackets, as fd00::/8";
    }
    if (SHORT_IPV4.matcher(address).matches()) {
      return "an IPv4 address needs all four numbers, as 10.0.0.0/8 (a short form such as 10/8"
          + " or 192.168.1/24 names another network to the resolver)";
    }
    if (address.matches("[0-9]+(\\.[0-9]+){3}")) {
      return "four decimal numbers 0..255 without leading zeros (a leading zero reads as octal)";
    }
    return "not an IPv4 address of four decimal numbers (10.0.0.0/8) nor an IPv6 address"
        + " (fd00::/8); host names are not looked up";
  }

  private static byte[] masked(byte[] address, int prefix) {
    byte[] out = address.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.clamp(prefix - i * 8L, 0, 8);
      out[i] &= (byte) (0xff << (8 - keep));
    }
    return out;
  }

  private static String format(byte[] bytes) {
    return bytes.length == 4
        ? (bytes[0] & 0xff)
            + "."
            + (bytes[1] & 0xff)
            + "."
            + (bytes[2] & 0xff)
            + "."
            + (bytes[3] & 0xff)
        : IpText.formatIpv6(bytes);
  }

  /** Whether {@code address} is in this network (an IPv4 address never matches an IPv6 one). */
  public boolean contains(InetAddress address) {
    byte[] a = address.getAddress();
    if (a.length != network.length) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (a[i] != network[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = 0xff << (8 - rest) & 0xff;
    return (a[full] & mask) == (network[full] & mask);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cidr c && c.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
