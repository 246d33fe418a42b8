package dev.sluice.proxy.proxyprotocol;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Family;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/** Valid headers of every kind, to mutate, and the parsers they are read with. */
final class Seeds {
  private Seeds() {}

  /** Both versions at 4 KiB; v1 only; v2 only at the smallest limit. */
  static final List<ProxyHeaderParser> PARSERS =
      List.of(
          new ProxyHeaderParser(EnumSet.allOf(Version.class), 4096),
          new ProxyHeaderParser(EnumSet.of(Version.V1), 4096),
          new ProxyHeaderParser(EnumSet.of(Version.V2), ProxyHeaderParser.MIN_MAX_BYTES));

  static List<byte[]> headers() {
    try {
      InetSocketAddress v4a = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 40000);
      InetSocketAddress v4b = new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 443);
      InetSocketAddress v6a = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 1);
      InetSocketAddress v6b = new InetSocketAddress(InetAddress.getByName("2001:db8::2"), 65535);
      List<Tlv> tlvs =
          List.of(
              Tlv.text(Tlv.ALPN, "h2"),
              Tlv.text(Tlv.AUTHORITY, "api.example.com"),
              new SslInfo(
                      SslInfo.CLIENT_SSL | SslInfo.CLIENT_CERT_CONN | SslInfo.CLIENT_CERT_SESS,
                      0,
                      List.of(Tlv.text(Tlv.SSL_VERSION, "TLSv1.3"), Tlv.text(Tlv.SSL_CN, "alice")))
                  .toTlv());
      List<byte[]> seeds = new ArrayList<>();
      seeds.add(ProxyHeaderEncoder.encode(ProxyHeader.v1(v4a, v4b)));
      seeds.add(ProxyHeaderEncoder.encode(ProxyHeader.v1(v6a, v6b)));
      seeds.add(ProxyHeaderEncoder.encode(ProxyHeader.v1(v4a, v6b)));
      seeds.add(ProxyHeaderEncoder.encode(ProxyHeader.v1Unknown()));
      seeds.add(
          "PROXY TCP6 2001:0db8:0:0:0:0:0:1 ::ffff:192.0.2.1 1 2\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      seeds.add(ProxyHeaderEncoder.encode(ProxyHeader.v2Local()));
      seeds.add(
          ProxyHeaderEncoder.encode(
              new ProxyHeader(Version.V2, Command.PROXY, Family.TCP4, v4a, v4b, tlvs)));
      seeds.add(
          ProxyHeaderEncoder.encode(
              new ProxyHeader(Version.V2, Command.PROXY, Family.TCP6, v6a, v6b, List.of())));
      seeds.add(
          ProxyHeaderEncoder.encode(
              new ProxyHeader(
                  Version.V2,
                  Command.PROXY,
                  Family.UNIX,
                  UnixDomainSocketAddress.of("/run/client.sock"),
                  UnixDomainSocketAddress.of("/run/sluice.sock"),
                  List.of(Tlv.text(Tlv.AUTHORITY, "x")))));
      seeds.add(
          ProxyHeaderEncoder.encode(
              new ProxyHeader(Version.V2, Command.PROXY, Family.UNSPEC, null, null, tlvs)));
      seeds.add(V2Bytes.proxy(0x11).ipv4Addresses().tlv(Tlv.NOOP, new byte[3]).build(true));
      return seeds;
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
