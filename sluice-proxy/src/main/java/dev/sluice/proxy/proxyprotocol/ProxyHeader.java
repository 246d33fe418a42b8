package dev.sluice.proxy.proxyprotocol;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A PROXY protocol header (HAProxy's, versions 1 and 2): who the client really was, as told by the
 * load balancer in front, and for version 2 what else it knew (TLVs).
 *
 * @param version the text (1) or binary (2) form
 * @param command PROXY (a relayed connection) or LOCAL (the sender's own, such as a health check;
 *     version 2 only)
 * @param family what the addresses are; {@link Family#UNSPEC} (v1 {@code UNKNOWN}) carries none
 * @param source the original client, or null when the family is UNSPEC or the command LOCAL
 * @param destination the address the client connected to, likewise
 * @param tlvs version 2's type-length-value extensions, in header order (none for version 1)
 */
public record ProxyHeader(
    Version version,
    Command command,
    Family family,
    SocketAddress source,
    SocketAddress destination,
    List<Tlv> tlvs) {

  /** The two forms of the header. */
  public enum Version {
    /** {@code PROXY TCP4 ...\r\n}: one line of text. */
    V1,
    /** A 16-byte binary prefix, the addresses and TLVs. */
    V2;

    /** As written in configuration: {@code v1}, {@code v2}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What the connection is. */
  public enum Command {
    /** Relayed for the client named in the header. */
    PROXY,
    /**
     * The sender's own connection (a health check): the receiver uses the connection's real
     * addresses.
     */
    LOCAL
  }

  /**
   * The addresses' family, over a stream transport (datagram headers are refused: this is a TCP
   * proxy).
   */
  public enum Family {
    /**
     * None given (v1 {@code UNKNOWN}, v2 {@code AF_UNSPEC}): the connection's own addresses hold.
     */
    UNSPEC,
    /** TCP over IPv4. */
    TCP4,
    /** TCP over IPv6 (an IPv4-mapped address is kept as the IPv4 address it stands for). */
    TCP6,
    /** A Unix stream socket (version 2 only). */
    UNIX
  }

  public ProxyHeader {
    tlvs = List.copyOf(tlvs);
    if (command == Command.LOCAL && (version == Version.V1 || family != Family.UNSPEC)) {
      throw new IllegalArgumentException("a LOCAL header is version 2 and carries no addresses");
    }
    if (version == Version.V1 && (family == Family.UNIX || !tlvs.isEmpty())) {
      throw new IllegalArgumentException("version 1 carries no Unix addresses and no TLVs");
    }
    switch (family) {
      case UNSPEC -> {
        if (source != null || destination != null) {
          throw new IllegalArgumentException("an UNSPEC header carries no addresses");
        }
      }
      case TCP4 -> {
        requireInet(source, true);
        requireInet(destination, true);
      }
      case TCP6 -> {
        requireInet(source, false);
        requireInet(destination, false);
      }
      case UNIX -> {
        if (!(source instanceof UnixDomainSocketAddress)
            || !(destination instanceof UnixDomainSocketAddress)) {
          throw new IllegalArgumentException("a UNIX header needs Unix socket addresses");
        }
      }
    }
  }

  private static void requireInet(SocketAddress address, boolean v4) {
    if (!(address instanceof InetSocketAddress inet)
        || inet.getAddress() == null
        || (v4 && !(inet.getAddress() instanceof Inet4Address))) {
      throw new IllegalArgumentException(
          "a " + (v4 ? "TCP4" : "TCP6") + " header needs resolved IP addresses, not " + address);
    }
  }

  /** A version 1 header for a relayed TCP connection (TCP4 or TCP6 by the source's family). */
  public static ProxyHeader v1(InetSocketAddress source, InetSocketAddress destination) {
    return new ProxyHeader(
        Version.V1, Command.PROXY, tcpFamily(source, destination), source, destination, List.of());
  }

  /** A version 1 {@code PROXY UNKNOWN} header. */
  public static ProxyHeader v1Unknown() {
    return new ProxyHeader(Version.V1, Command.PROXY, Family.UNSPEC, null, null, List.of());
  }

  /** A version 2 LOCAL header: the sender's own connection, such as a health check. */
  public static ProxyHeader v2Local() {
    return new ProxyHeader(Version.V2, Command.LOCAL, Family.UNSPEC, null, null, List.of());
  }

  /** The TCP family for two addresses: TCP4 when both are IPv4, else TCP6 (IPv4 mapped). */
  static Family tcpFamily(InetSocketAddress source, InetSocketAddress destination) {
    return source.getAddress() instanceof Inet4Address
            && destination.getAddress() instanceof Inet4Address
        ? Family.TCP4
        : Family.TCP6;
  }

  /** The first TLV of {@code type}, or null. */
  public Tlv tlv(int type) {
    for (Tlv tlv : tlvs) {
      if (tlv.type() == type) {
        return tlv;
      }
    }
    return null;
  }

  /** The ALPN protocol the sender saw (PP2_TYPE_ALPN), or null. */
  public String alpn() {
    Tlv tlv = tlv(Tlv.ALPN);
    return tlv == null ? null : tlv.text();
  }

  /** The host name the client asked for (PP2_TYPE_AUTHORITY: its SNI), or null. */
  public String authority() {
    Tlv tlv = tlv(Tlv.AUTHORITY);
    return tlv == null ? null : tlv.text();
  }

  /** What the sender knew of the client's TLS (PP2_TYPE_SSL), or null. */
  public SslInfo ssl() {
    Tlv tlv = tlv(Tlv.SSL);
    return tlv == null ? null : SslInfo.parse(tlv.value());
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("PROXY ").append(version.label()).append(' ');
    s.append(command == Command.LOCAL ? "LOCAL" : family.name());
    if (source != null) {
      s.append(' ').append(text(source)).append(" -> ").append(text(destination));
    }
    for (Tlv tlv : tlvs) {
      s.append(' ').append(tlv);
    }
    return s.toString();
  }

  private static String text(SocketAddress address) {
    return switch (address) {
      case InetSocketAddress inet -> IpText.format(inet.getAddress()) + ":" + inet.getPort();
      case UnixDomainSocketAddress unix -> "unix:" + unix.getPath();
      default -> String.valueOf(address);
    };
  }

  /** Decodes a TLV's value as UTF-8 text (ALPN, authority, SSL strings). */
  static String utf8(byte[] value) {
    return new String(value, StandardCharsets.UTF_8);
  }
}
