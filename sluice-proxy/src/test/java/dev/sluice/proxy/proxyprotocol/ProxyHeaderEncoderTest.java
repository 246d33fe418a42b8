package dev.sluice.proxy.proxyprotocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Family;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Parsed;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Writing headers: the exact bytes of v1 and v2 (checked against the specification's layout by
 * hand), IPv6 text in RFC 5952 form, what cannot be written refused, and a round trip of random
 * headers through the parser.
 */
class ProxyHeaderEncoderTest {
  private static final ProxyHeaderParser PARSER =
      new ProxyHeaderParser(EnumSet.allOf(Version.class), ProxyHeaderParser.V2_MAX_BYTES);
  private static final String SIGNATURE = "0d0a0d0a000d0a515549540a";

  private static InetSocketAddress inet(String ip, int port) throws Exception {
    return new InetSocketAddress(InetAddress.getByName(ip), port);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  @Test
  void v1Lines() throws Exception {
    assertThat(
            text(
                ProxyHeaderEncoder.encode(
                    ProxyHeader.v1(inet("192.0.2.1", 40000), inet("198.51.100.7", 443)))))
        .isEqualTo("PROXY TCP4 192.0.2.1 198.51.100.7 40000 443\r\n");
    assertThat(
            text(
                ProxyHeaderEncoder.encode(
                    ProxyHeader.v1(inet("2001:db8::1", 1), inet("2001:db8:0:0:1::2", 2)))))
        .isEqualTo("PROXY TCP6 2001:db8::1 2001:db8::1:0:0:2 1 2\r\n");
    // An IPv4 client behind an IPv6 address: the whole line is TCP6, the client mapped.
    assertThat(
            text(
                ProxyHeaderEncoder.encode(
                    ProxyHeader.v1(inet("192.0.2.1", 1), inet("2001:db8::2", 2)))))
        .isEqualTo("PROXY TCP6 ::ffff:192.0.2.1 2001:db8::2 1 2\r\n");
    assertThat(text(ProxyHeaderEncoder.encode(ProxyHeader.v1Unknown())))
        .isEqualTo("PROXY UNKNOWN\r\n");
  }

  @Test
  void v2Bytes() throws Exception {
    ProxyHeader tcp4 =
        new ProxyHeader(
            Version.V2,
            Command.PROXY,
            Family.TCP4,
            inet("192.0.2.1", 40000),
            inet("198.51.100.7", 443),
            List.of(Tlv.text(Tlv.ALPN, "h2")));
    assertThat(hex(ProxyHeaderEncoder.encode(tcp4)))
        .isEqualTo(
            SIGNATURE
                + "21"
                + "11"
                + "0011"
                + "c0000201"
                + "c6336407"
                + "9c40"
                + "01bb"
                + "01"
                + "0002"
                + "6832");
    assertThat(hex(ProxyHeaderEncoder.encode(ProxyHeader.v2Local())))
        .isEqualTo(SIGNATURE + "20" + "00" + "0000");
    ProxyHeader tcp6 =
        new ProxyHeader(
            Version.V2,
            Command.PROXY,
            Family.TCP6,
            inet("192.0.2.1", 1),
            inet("2001:db8::2", 2),
            List.of());
    assertThat(hex(ProxyHeaderEncoder.encode(tcp6)))
        .isEqualTo(
            SIGNATURE
                + "21"
                + "21"
                + "0024"
                + "00000000000000000000ffffc0000201"
                + "20010db8000000000000000000000002"
                + "0001"
                + "0002");
    ProxyHeader unix =
        new ProxyHeader(
            Version.V2,
            Command.PROXY,
            Family.UNIX,
            UnixDomainSocketAddress.of("/a"),
            UnixDomainSocketAddress.of(""),
            List.of());
    byte[] u = ProxyHeaderEncoder.encode(unix);
    assertThat(u).hasSize(16 + 216);
    assertThat(hex(u)).startsWith(SIGNATURE + "21" + "31" + "00d8" + "2f61" + "00".repeat(106));
  }

  @Test
  void theSslTlvCarriesItsBitsAndSubTlvs() {
    SslInfo ssl =
        new SslInfo(
            SslInfo.CLIENT_SSL | SslInfo.CLIENT_CERT_CONN,
            0,
            List.of(Tlv.text(Tlv.SSL_VERSION, "TLSv1.3"), Tlv.text(Tlv.SSL_CN, "alice")));
    assertThat(hex(ssl.toTlv().value()))
        .isEqualTo(
            "03"
                + "00000000"
                + "21"
                + "0007"
                + hex("TLSv1.3".getBytes())
                + "22"
                + "0005"
                + hex("alice".getBytes()));
    assertThat(SslInfo.parse(ssl.toTlv().value())).isEqualTo(ssl);
    assertThat(ssl.verifiedCertificate()).isTrue();
    assertThat(new SslInfo(SslInfo.CLIENT_SSL, 1, List.of()).verifiedCertificate()).isFalse();
    assertThat(
            new SslInfo(SslInfo.CLIENT_SSL | SslInfo.CLIENT_CERT_CONN, 1, List.of())
                .verifiedCertificate())
        .as("presented, not verified")
        .isFalse();
  }

  @Test
  void whatCannotBeWrittenIsRefused() throws Exception {
    assertThatThrownBy(
            () ->
                ProxyHeaderEncoder.encode(
                    new ProxyHeader(
                        Version.V2,
                        Command.PROXY,
                        Family.UNSPEC,
                        null,
                        null,
                        List.of(new Tlv(0xE0, new byte[0xffff - 2])))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than 65535");
    assertThatThrownBy(
            () ->
                ProxyHeaderEncoder.encode(
                    new ProxyHeader(
                        Version.V2,
                        Command.PROXY,
                        Family.UNIX,
                        UnixDomainSocketAddress.of("/" + "x".repeat(108)),
                        UnixDomainSocketAddress.of("/b"),
                        List.of())))
        .hasMessageContaining("does not fit in 108");
    // Headers that cannot exist.
    assertThatThrownBy(
            () -> new ProxyHeader(Version.V1, Command.LOCAL, Family.UNSPEC, null, null, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new ProxyHeader(
                    Version.V1,
                    Command.PROXY,
                    Family.TCP4,
                    inet("::1", 1),
                    inet("192.0.2.1", 2),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new ProxyHeader(
                    Version.V1,
                    Command.PROXY,
                    Family.UNSPEC,
                    null,
                    null,
                    List.of(Tlv.text(Tlv.ALPN, "h2"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new ProxyHeader(
                    Version.V2,
                    Command.PROXY,
                    Family.TCP6,
                    InetSocketAddress.createUnresolved("example.com", 1),
                    inet("::1", 2),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Tlv(256, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ipv6TextIsRfc5952() throws Exception {
    String[][] cases = {
      {"2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"},
      {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"}, // one zero group is not shortened
      {"2001:0:0:1:0:0:0:1", "2001:0:0:1::1"}, // the longest run
      {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"}, // the first of equal runs
      {"0:0:0:0:0:0:0:0", "::"},
      {"0:0:0:0:0:0:0:1", "::1"},
      {"1:0:0:0:0:0:0:0", "1::"},
      {"FE80:0:0:0:0:0:0:ABCD", "fe80::abcd"},
      {"::ffff:192.0.2.1", "::ffff:192.0.2.1"},
      {"::192.0.2.1", "::c000:201"},
    };
    for (String[] c : cases) {
      byte[] bytes = InetAddress.getByName(c[0]).getAddress();
      if (bytes.length == 4) {
        bytes = IpText.sixteen(InetAddress.getByAddress(bytes));
      }
      assertThat(IpText.formatIpv6(bytes)).as(c[0]).isEqualTo(c[1]);
    }
  }

  @Test
  void ipv6TextParsesAsTheJdkReadsLiterals() throws Exception {
    Random random = new Random(0x1B76L);
    for (int i = 0; i < 5000; i++) {
      byte[] address = new byte[16];
      for (int g = 0; g < 8; g++) {
        if (random.nextInt(3) > 0) { // runs of zeros, to exercise "::"
          address[2 * g] = (byte) random.nextInt(256);
          address[2 * g + 1] = (byte) random.nextInt(256);
        }
      }
      Inet6Address expected = Inet6Address.getByAddress(null, address, -1);
      List<String> forms = new ArrayList<>();
      forms.add(IpText.formatIpv6(address));
      forms.add(expected.getHostAddress()); // the JDK's: every group, no "::"
      forms.add(IpText.formatIpv6(address).toUpperCase(java.util.Locale.ROOT));
      forms.add(
          expected
                  .getHostAddress()
                  .substring(
                      0,
                      expected
                              .getHostAddress()
                              .lastIndexOf(':', expected.getHostAddress().lastIndexOf(':') - 1)
                          + 1)
              + (address[12] & 0xff)
              + "."
              + (address[13] & 0xff)
              + "."
              + (address[14] & 0xff)
              + "."
              + (address[15] & 0xff));
      for (String form : forms) {
        byte[] text = form.getBytes(StandardCharsets.US_ASCII);
        assertThat(IpText.parseIpv6(text, 0, text.length)).as(form).isEqualTo(address);
      }
    }
  }

  @Test
  void randomHeadersRoundTripThroughTheParser() throws Exception {
    Random random = new Random(0xE2C0DEL);
    for (int i = 0; i < 3000; i++) {
      ProxyHeader header = randomHeader(random);
      byte[] bytes = ProxyHeaderEncoder.encode(header);
      ProxyHeaderParser.Result result = HeaderChecks.parse(PARSER, bytes);
      assertThat(result)
          .as("%s as %s", header, hex(bytes))
          .isEqualTo(new Parsed(header, bytes.length));
    }
  }

  /** A header of every kind: both versions, every family, random addresses and TLVs. */
  static ProxyHeader randomHeader(Random random) throws Exception {
    Version version = random.nextBoolean() ? Version.V1 : Version.V2;
    if (version == Version.V2 && random.nextInt(10) == 0) {
      return ProxyHeader.v2Local();
    }
    Family family = Family.values()[random.nextInt(version == Version.V1 ? 3 : 4)];
    SocketAddress source = null;
    SocketAddress destination = null;
    switch (family) {
      case UNSPEC -> {}
      case TCP4 -> {
        source = new InetSocketAddress(randomAddress(random, 4), random.nextInt(65536));
        destination = new InetSocketAddress(randomAddress(random, 4), random.nextInt(65536));
      }
      case TCP6 -> {
        source =
            new InetSocketAddress(
                randomAddress(random, random.nextInt(4) == 0 ? 4 : 16), random.nextInt(65536));
        destination = new InetSocketAddress(randomAddress(random, 16), random.nextInt(65536));
      }
      case UNIX -> {
        source = UnixDomainSocketAddress.of(random.nextBoolean() ? "" : "/run/c" + i(random));
        destination = UnixDomainSocketAddress.of("/run/s" + i(random));
      }
    }
    List<Tlv> tlvs = new ArrayList<>();
    if (version == Version.V2) {
      for (int t = random.nextInt(4); t > 0; t--) {
        int type =
            switch (random.nextInt(4)) {
              case 0 -> Tlv.ALPN;
              case 1 -> Tlv.AUTHORITY;
              case 2 -> 0xE0 + random.nextInt(16);
              default -> Tlv.SSL;
            };
        if (type == Tlv.SSL) {
          tlvs.add(
              new SslInfo(
                      random.nextInt(8),
                      random.nextInt(2),
                      List.of(Tlv.text(Tlv.SSL_CN, "cn" + i(random))))
                  .toTlv());
        } else {
          byte[] value = new byte[random.nextInt(40)];
          random.nextBytes(value);
          tlvs.add(new Tlv(type, value));
        }
      }
    }
    return new ProxyHeader(version, Command.PROXY, family, source, destination, tlvs);
  }

  private static int i(Random random) {
    return random.nextInt(1000);
  }

  private static InetAddress randomAddress(Random random, int size) throws Exception {
    byte[] b = new byte[size];
    random.nextBytes(b);
    if (size == 16 && random.nextInt(4) == 0) {
      java.util.Arrays.fill(b, 4, 14, (byte) 0);
    }
    return InetAddress.getByAddress(b);
  }
}
