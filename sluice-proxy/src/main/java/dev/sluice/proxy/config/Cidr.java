package dev.sluice.proxy.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** A network: an address and a prefix length ({@code 10.0.0.0/8}, {@code ::1/128}). */
public record Cidr(byte[] network, int prefix, String text) {

  /**
   * Parses {@code a.b.c.d/n} or {@code v6/n} (a bare address is a single host).
   *
   * @throws IllegalArgumentException saying what is accepted
   */
  public static Cidr parse(String text) {
    String t = text.strip();
    int slash = t.indexOf('/');
    String address = slash < 0 ? t : t.substring(0, slash);
    if (!address.matches("[0-9a-fA-F:.]+") || address.isEmpty()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a network: use 10.0.0.0/8 or fd00::/8");
    }
    byte[] bytes;
    try {
      bytes = InetAddress.getByName(address).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address");
    }
    int bits = bytes.length * 8;
    int prefix;
    try {
      prefix = slash < 0 ? bits : Integer.parseInt(t.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "': the prefix length is not a number");
    }
    if (prefix < 0 || prefix > bits) {
      throw new IllegalArgumentException("'" + text + "': the prefix length must be 0.." + bits);
    }
    return new Cidr(bytes, prefix, t);
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
