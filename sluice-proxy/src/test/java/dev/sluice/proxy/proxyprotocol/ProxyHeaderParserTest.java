package dev.sluice.proxy.proxyprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Family;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Invalid;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.NeedMore;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Parsed;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Result;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading PROXY headers: every valid form of v1 and v2, each cut at every byte (undecided until
 * complete, the same header whatever follows); every malformed, truncated, oversized or unexpected
 * one refused with its reason, as soon as the bytes in show it.
 */
class ProxyHeaderParserTest {
  private static final int MAX = 4096;
  private static final ProxyHeaderParser BOTH =
      new ProxyHeaderParser(EnumSet.allOf(Version.class), MAX);
  private static final ProxyHeaderParser ONLY_V1 =
      new ProxyHeaderParser(EnumSet.of(Version.V1), MAX);
  private static final ProxyHeaderParser ONLY_V2 =
      new ProxyHeaderParser(EnumSet.of(Version.V2), MAX);
  private static final byte[] PAYLOAD = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static InetSocketAddress inet(String ip, int port) throws Exception {
    return new InetSocketAddress(InetAddress.getByName(ip), port);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Parses {@code header} followed by a payload, and checks every cut of it is undecided. */
  private static ProxyHeader parsesWhole(ProxyHeaderParser parser, byte[] header) {
    byte[] input = concat(header, PAYLOAD);
    Result result = HeaderChecks.parse(parser, input);
    assertThat(result).isInstanceOf(Parsed.class);
    Parsed parsed = (Parsed) result;
    assertThat(parsed.length()).as("the header's length").isEqualTo(header.length);
    // Every cut of a small header; of a large one the first and last 64 and every 97th.
    for (int cut = 0; cut < header.length; cut += cutStep(cut, header.length)) {
      assertThat(HeaderChecks.parse(parser, Arrays.copyOf(header, cut)))
          .as("cut at %d of %d", cut, header.length)
          .isInstanceOf(NeedMore.class);
    }
    for (int cut = header.length; cut <= input.length; cut++) {
      assertThat(HeaderChecks.parse(parser, Arrays.copyOf(input, cut)))
          .as("%d B of what follows", cut - header.length)
          .isEqualTo(parsed);
    }
    return parsed.header();
  }

  private static int cutStep(int cut, int length) {
    return length <= 1024 || cut < 64 || cut >= length - 64 ? 1 : 97;
  }

  private static String refusal(ProxyHeaderParser parser, byte[] input) {
    Result result = HeaderChecks.parse(parser, input);
    assertThat(result).as(HeaderChecks.describe(input)).isInstanceOf(Invalid.class);
    return ((Invalid) result).reason();
  }

  // ---- version 1 ----

  @Test
  void v1Tcp4() throws Exception {
    ProxyHeader h = parsesWhole(BOTH, ascii("PROXY TCP4 192.0.2.1 198.51.100.7 40000 443\r\n"));
    assertThat(h)
        .isEqualTo(
            new ProxyHeader(
                Version.V1,
                Command.PROXY,
                Family.TCP4,
                inet("192.0.2.1", 40000),
                inet("198.51.100.7", 443),
                List.of()));
  }

  @Test
  void v1Tcp6InEveryTextForm() throws Exception {
    assertThat(parsesWhole(BOTH, ascii("PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n")))
        .isEqualTo(ProxyHeader.v1(inet("2001:db8::1", 1), inet("2001:db8::2", 65535)));
    assertThat(
            parsesWhole(
                    BOTH, ascii("PROXY TCP6 2001:0DB8:0000:0000:0000:0000:0000:0001 ::1 0 0\r\n"))
                .source())
        .isEqualTo(inet("2001:db8::1", 0));
    // An IPv4-mapped address stands for the IPv4 client it maps.
    ProxyHeader mapped = parsesWhole(BOTH, ascii("PROXY TCP6 ::ffff:192.0.2.1 :: 5 6\r\n"));
    assertThat(mapped.family()).isEqualTo(Family.TCP6);
    assertThat(mapped.source()).isEqualTo(inet("192.0.2.1", 5));
    assertThat(mapped.destination()).isEqualTo(inet("::", 6));
  }

  @Test
  void v1TheLongestLineIsAccepted() throws Exception {
    String full = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
    byte[] line = ascii("PROXY TCP6 " + full + " " + full + " 65535 65535\r\n");
    assertThat(line).hasSize(104);
    parsesWhole(BOTH, line);
    // UNKNOWN may be followed by anything up to the 107-byte limit: it is ignored.
    byte[] unknown = ascii("PROXY UNKNOWN " + "x".repeat(107 - 16) + "\r\n");
    assertThat(unknown).hasSize(107);
    assertThat(parsesWhole(BOTH, unknown)).isEqualTo(ProxyHeader.v1Unknown());
  }

  @Test
  void v1Unknown() {
    assertThat(parsesWhole(BOTH, ascii("PROXY UNKNOWN\r\n"))).isEqualTo(ProxyHeader.v1Unknown());
    assertThat(
            parsesWhole(
                BOTH, ascii("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n")))
        .isEqualTo(ProxyHeader.v1Unknown());
  }

  static Stream<Arguments> malformedV1() {
    return Stream.of(
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 2\n", "LF without CR"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 2\rX", "a CR not followed by LF"),
        Arguments.of("PROXY TCP4 192.0.2.1\u0000192.0.2.2 1 2\r\n", "0x00 that is not printable"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 2\u00e9\r\n", "0xe9 that is not printable"),
        Arguments.of("PROXY TCP5 192.0.2.1 192.0.2.2 1 2\r\n", "unknown PROXY v1 protocol 'TCP5'"),
        Arguments.of("PROXY HTTP/1.1\r\n", "unknown PROXY v1 protocol 'HTTP/1.1'"),
        Arguments.of("PROXY tcp4 192.0.2.1 192.0.2.2 1 2\r\n", "unknown PROXY v1 protocol"),
        Arguments.of("PROXY UNKNOWNS\r\n", "unknown PROXY v1 protocol 'UNKNOWNS'"),
        Arguments.of("PROXY \r\n", "unknown PROXY v1 protocol ''"),
        Arguments.of("PROXY TCP4\r\n", "needs source and destination addresses and ports"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1\r\n", "needs source and destination"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 2 3\r\n", "after the destination port"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 2 \r\n", "an empty field"),
        Arguments.of("PROXY TCP4  192.0.2.1 192.0.2.2 1 2\r\n", "an empty field (two spaces"),
        Arguments.of("PROXY TCP4 192.0.2 192.0.2.2 1 2\r\n", "the source '192.0.2' is not"),
        Arguments.of("PROXY TCP4 192.0.2.1.5 192.0.2.2 1 2\r\n", "the source '192.0.2.1.5' is"),
        Arguments.of("PROXY TCP4 192.0.02.1 192.0.2.2 1 2\r\n", "'192.0.02.1' is not an IPv4"),
        Arguments.of("PROXY TCP4 192.0.2.256 192.0.2.2 1 2\r\n", "'192.0.2.256' is not an IPv4"),
        Arguments.of("PROXY TCP4 localhost 192.0.2.2 1 2\r\n", "'localhost' is not an IPv4"),
        Arguments.of("PROXY TCP4 ::1 192.0.2.2 1 2\r\n", "the source '::1' is not an IPv4"),
        Arguments.of("PROXY TCP4 192.0.2.1 ::1 1 2\r\n", "the destination '::1' is not an IPv4"),
        Arguments.of("PROXY TCP6 192.0.2.1 ::1 1 2\r\n", "the source '192.0.2.1' is not an IPv6"),
        Arguments.of("PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", "'fe80::1%eth0' is not an IPv6"),
        Arguments.of("PROXY TCP6 [::1] ::1 1 2\r\n", "'[::1]' is not an IPv6"),
        Arguments.of("PROXY TCP6 1:::2 ::1 1 2\r\n", "'1:::2' is not an IPv6"),
        Arguments.of("PROXY TCP6 1::2::3 ::1 1 2\r\n", "'1::2::3' is not an IPv6"),
        Arguments.of("PROXY TCP6 1:2:3:4:5:6:7:8:9 ::1 1 2\r\n", "is not an IPv6"),
        Arguments.of("PROXY TCP6 1:2:3:4:5:6:7 ::1 1 2\r\n", "'1:2:3:4:5:6:7' is not an IPv6"),
        Arguments.of("PROXY TCP6 1::2:3:4:5:6:7:8 ::1 1 2\r\n", "is not an IPv6"),
        Arguments.of("PROXY TCP6 12345::1 ::1 1 2\r\n", "'12345::1' is not an IPv6"),
        Arguments.of("PROXY TCP6 :1::2 ::1 1 2\r\n", "':1::2' is not an IPv6"),
        Arguments.of("PROXY TCP6 1::2: ::1 1 2\r\n", "'1::2:' is not an IPv6"),
        Arguments.of("PROXY TCP6 ::1.2.3 ::1 1 2\r\n", "'::1.2.3' is not an IPv6"),
        Arguments.of("PROXY TCP6 ::g ::1 1 2\r\n", "'::g' is not an IPv6"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 65536 2\r\n", "source port '65536'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 99999\r\n", "destination port '99999'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 080 2\r\n", "source port '080'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 -1 2\r\n", "source port '-1'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 +2\r\n", "destination port '+2'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 1 \r\n", "an empty field"),
        Arguments.of(
            "PROXY TCP4 192.0.2.1 192.0.2.2 1 2 3 4\r\n",
            "after the destination port in the PROXY v1 line: '3 4'"),
        Arguments.of("PROXY TCP4 192.0.2.1 192.0.2.2 0x50 2\r\n", "source port '0x50'"));
  }

  @ParameterizedTest
  @MethodSource("malformedV1")
  void malformedV1IsRefusedWithItsReason(String line, String reason) {
    assertThat(refusal(BOTH, line.getBytes(StandardCharsets.ISO_8859_1))).contains(reason);
  }

  @Test
  void v1WithoutCrlfWithin107BytesIsRefusedAtTheByteThatShowsIt() {
    byte[] line = ascii("PROXY UNKNOWN " + "x".repeat(200));
    assertThat(HeaderChecks.parse(BOTH, Arrays.copyOf(line, 106))).isInstanceOf(NeedMore.class);
    assertThat(refusal(BOTH, Arrays.copyOf(line, 107))).contains("no CRLF within the 107 bytes");
    // A CR as the 107th byte is not enough: the LF would be the 108th.
    byte[] late = concat(Arrays.copyOf(line, 106), ascii("\r\n"));
    assertThat(HeaderChecks.parse(BOTH, Arrays.copyOf(late, 107))).isInstanceOf(Invalid.class);
  }

  @Test
  void anUnknownV1ProtocolIsRefusedBeforeTheLineEnds() {
    assertThat(refusal(BOTH, ascii("PROXY TCP5"))).contains("'TCP5'");
    assertThat(refusal(BOTH, ascii("PROXY H"))).contains("unknown PROXY v1 protocol");
    assertThat(HeaderChecks.parse(BOTH, ascii("PROXY TCP"))).isInstanceOf(NeedMore.class);
    assertThat(HeaderChecks.parse(BOTH, ascii("PROXY UNKNOW"))).isInstanceOf(NeedMore.class);
  }

  // ---- version 2 ----

  @Test
  void v2Tcp4() throws Exception {
    ProxyHeader h = parsesWhole(BOTH, V2Bytes.proxy(0x11).ipv4Addresses().build());
    assertThat(h)
        .isEqualTo(
            new ProxyHeader(
                Version.V2,
                Command.PROXY,
                Family.TCP4,
                inet("192.0.2.1", 40000),
                inet("198.51.100.7", 443),
                List.of()));
  }

  @Test
  void v2Tcp6() throws Exception {
    ProxyHeader h = parsesWhole(BOTH, V2Bytes.proxy(0x21).ipv6Addresses().build());
    assertThat(h.family()).isEqualTo(Family.TCP6);
    assertThat(h.source()).isEqualTo(inet("2001:db8::1", 40000));
    assertThat(h.destination()).isEqualTo(inet("2001:db8::2", 443));
  }

  @Test
  void v2Unix() {
    byte[] paths = new byte[216];
    byte[] src = "/run/client.sock".getBytes(StandardCharsets.UTF_8);
    byte[] dst = "/run/sluice.sock".getBytes(StandardCharsets.UTF_8);
    System.arraycopy(src, 0, paths, 0, src.length);
    System.arraycopy(dst, 0, paths, 108, dst.length);
    ProxyHeader h = parsesWhole(BOTH, V2Bytes.proxy(0x31).bytes(paths).build());
    assertThat(h.family()).isEqualTo(Family.UNIX);
    assertThat(h.source()).isEqualTo(UnixDomainSocketAddress.of("/run/client.sock"));
    assertThat(h.destination()).isEqualTo(UnixDomainSocketAddress.of("/run/sluice.sock"));
    // A path of all 108 bytes, without a NUL.
    byte[] full = new byte[216];
    Arrays.fill(full, 0, 108, (byte) 'a');
    ProxyHeader longest = parsesWhole(BOTH, V2Bytes.proxy(0x31).bytes(full).build());
    assertThat(((UnixDomainSocketAddress) longest.source()).getPath().toString())
        .isEqualTo("a".repeat(108));
    assertThat(((UnixDomainSocketAddress) longest.destination()).getPath().toString()).isEmpty();
  }

  @Test
  void v2UnspecCarriesNoAddressesButItsTlvs() {
    ProxyHeader h =
        parsesWhole(BOTH, V2Bytes.proxy(0x00).tlv(Tlv.AUTHORITY, ascii("api.example")).build());
    assertThat(h.command()).isEqualTo(Command.PROXY);
    assertThat(h.family()).isEqualTo(Family.UNSPEC);
    assertThat(h.source()).isNull();
    assertThat(h.authority()).isEqualTo("api.example");
  }

  @Test
  void v2LocalDiscardsItsBlockWhateverItHolds() {
    ProxyHeader empty = parsesWhole(BOTH, V2Bytes.proxy(0x00).versionCommand(0x20).build());
    assertThat(empty).isEqualTo(ProxyHeader.v2Local());
    // A LOCAL header with addresses, a datagram family, even bytes that would not be valid TLVs.
    assertThat(
            parsesWhole(
                BOTH, V2Bytes.proxy(0x11).versionCommand(0x20).ipv4Addresses().bytes(7).build()))
        .isEqualTo(ProxyHeader.v2Local());
    assertThat(parsesWhole(BOTH, V2Bytes.proxy(0x12).versionCommand(0x20).bytes(1, 2).build()))
        .isEqualTo(ProxyHeader.v2Local());
  }

  @Test
  void v2Tlvs() {
    byte[] ssl =
        concat(
            new byte[] {0x07, 0, 0, 0, 0},
            concat(
                new byte[] {Tlv.SSL_VERSION, 0, 7},
                concat(ascii("TLSv1.3"), concat(new byte[] {Tlv.SSL_CN, 0, 6}, ascii("client")))));
    ProxyHeader h =
        parsesWhole(
            BOTH,
            V2Bytes.proxy(0x11)
                .ipv4Addresses()
                .tlv(Tlv.ALPN, ascii("h2"))
                .tlv(Tlv.NOOP, new byte[5])
                .tlv(Tlv.AUTHORITY, ascii("api.example.com"))
                .tlv(Tlv.SSL, ssl)
                .tlv(0xE0, new byte[] {1, 2, 3})
                .tlv(Tlv.UNIQUE_ID, new byte[0])
                .build(true));
    assertThat(h.alpn()).isEqualTo("h2");
    assertThat(h.authority()).isEqualTo("api.example.com");
    assertThat(h.ssl().commonName()).isEqualTo("client");
    assertThat(h.ssl().version()).isEqualTo("TLSv1.3");
    assertThat(h.ssl().verifiedCertificate()).isTrue();
    assertThat(h.tlvs())
        .as("padding and the checksum are not kept; the rest in order")
        .extracting(Tlv::type)
        .containsExactly(Tlv.ALPN, Tlv.AUTHORITY, Tlv.SSL, 0xE0, Tlv.UNIQUE_ID);
  }

  @Test
  void v2AtExactlyTheLimitIsAcceptedAndOneByteMoreIsRefusedOnItsLength() {
    ProxyHeaderParser small = new ProxyHeaderParser(EnumSet.of(Version.V2), 300);
    byte[] fits =
        V2Bytes.proxy(0x11).ipv4Addresses().tlv(0xE0, new byte[300 - 16 - 12 - 3]).build();
    assertThat(fits).hasSize(300);
    parsesWhole(small, fits);
    byte[] over =
        V2Bytes.proxy(0x11).ipv4Addresses().tlv(0xE0, new byte[300 - 16 - 12 - 2]).build();
    assertThat(refusal(small, Arrays.copyOf(over, 16)))
        .as("refused on the fixed part alone")
        .isEqualTo("a 301 B PROXY v2 header, above the most accepted (300 B)");
    // The largest there can be, against the largest limit.
    ProxyHeaderParser largest =
        new ProxyHeaderParser(EnumSet.of(Version.V2), ProxyHeaderParser.V2_MAX_BYTES);
    parsesWhole(largest, V2Bytes.proxy(0x00).tlv(0xE0, new byte[0xffff - 3]).build());
  }

  static Stream<Arguments> malformedV2() {
    byte[] ipv4 = V2Bytes.proxy(0x11).ipv4Addresses().build();
    byte[] badUtf8 = new byte[216];
    badUtf8[0] = (byte) 0xC3; // a lead byte without its continuation
    badUtf8[1] = 'x';
    return Stream.of(
        Arguments.of(V2Bytes.proxy(0x11).versionCommand(0x11).ipv4Addresses().build(), "version 1"),
        Arguments.of(V2Bytes.proxy(0x11).versionCommand(0x31).ipv4Addresses().build(), "version 3"),
        Arguments.of(V2Bytes.proxy(0x11).versionCommand(0x22).ipv4Addresses().build(), "command 2"),
        Arguments.of(
            V2Bytes.proxy(0x11).versionCommand(0x2F).ipv4Addresses().build(), "command 15"),
        Arguments.of(V2Bytes.proxy(0x01).build(), "undefined PROXY v2 address family 0x01"),
        Arguments.of(V2Bytes.proxy(0x10).ipv4Addresses().build(), "address family 0x10"),
        Arguments.of(V2Bytes.proxy(0x13).ipv4Addresses().build(), "address family 0x13"),
        Arguments.of(V2Bytes.proxy(0x41).build(), "address family 0x41"),
        Arguments.of(V2Bytes.proxy(0xff).build(), "address family 0xff"),
        Arguments.of(V2Bytes.proxy(0x12).ipv4Addresses().build(), "datagram (UDP)"),
        Arguments.of(V2Bytes.proxy(0x22).ipv6Addresses().build(), "datagram (UDP)"),
        Arguments.of(V2Bytes.proxy(0x32).bytes(new byte[216]).build(), "datagram (UDP)"),
        Arguments.of(
            V2Bytes.proxy(0x11).bytes(192, 0, 2, 1, 1, 2, 3, 4).build(),
            "length of 8 B, too short for its IPv4 addresses (12 B)"),
        Arguments.of(
            V2Bytes.proxy(0x21).ipv4Addresses().build(),
            "length of 12 B, too short for its IPv6 addresses (36 B)"),
        Arguments.of(
            V2Bytes.proxy(0x31).bytes(new byte[108]).build(), "too short for its Unix socket"),
        Arguments.of(V2Bytes.proxy(0x11).ipv4Addresses().bytes(0x01).build(), "TLV cut off: 1 B"),
        Arguments.of(
            V2Bytes.proxy(0x11).ipv4Addresses().bytes(0x01, 0x00).build(), "TLV cut off: 2 B"),
        Arguments.of(
            V2Bytes.proxy(0x11).ipv4Addresses().bytes(0x01, 0x00, 0x05, 'h', '2').build(),
            "TLV 0x01 of 5 B overruns the header (2 B left)"),
        Arguments.of(
            V2Bytes.proxy(0x11)
                .ipv4Addresses()
                .tlv(Tlv.ALPN, ascii("h2"))
                .bytes(0x02, 0xff, 0xff)
                .build(),
            "TLV 0x02 of 65535 B overruns"),
        Arguments.of(
            V2Bytes.proxy(0x11).ipv4Addresses().tlv(Tlv.SSL, new byte[] {1, 0, 0, 0}).build(),
            "SSL TLV of 4 B, shorter than its 5 B"),
        Arguments.of(
            V2Bytes.proxy(0x11)
                .ipv4Addresses()
                .tlv(Tlv.SSL, new byte[] {1, 0, 0, 0, 0, Tlv.SSL_CN, 0, 9, 'a'})
                .build(),
            "sub-TLV 0x22 of 9 B overruns the PROXY v2 SSL TLV (1 B left)"),
        Arguments.of(
            V2Bytes.proxy(0x11)
                .ipv4Addresses()
                .tlv(Tlv.SSL, new byte[] {1, 0, 0, 0, 0, Tlv.SSL_CN, 0})
                .build(),
            "sub-TLV of the PROXY v2 SSL TLV cut off: 2 B left"),
        Arguments.of(
            V2Bytes.proxy(0x11).ipv4Addresses().tlv(Tlv.CRC32C, new byte[3]).build(),
            "CRC32c TLV of 3 B, not 4"),
        Arguments.of(flipLast(V2Bytes.proxy(0x11).ipv4Addresses().build(true)), "CRC32c does not"),
        Arguments.of(
            crcThenChange(V2Bytes.proxy(0x11).ipv4Addresses().build(true)), "CRC32c does not"),
        Arguments.of(V2Bytes.proxy(0x31).bytes(badUtf8).build(), "Unix socket path that is not"),
        Arguments.of(
            concat(Arrays.copyOf(ipv4, 11), new byte[] {0x0B, 0x21, 0x11, 0, 12}),
            "not a PROXY protocol header (it starts 0d 0a 0d 0a 00 0d 0a 51 ...)"));
  }

  private static byte[] flipLast(byte[] header) {
    header[header.length - 1] ^= 1;
    return header;
  }

  private static byte[] crcThenChange(byte[] header) {
    header[16] ^= 1; // the source address, after the checksum was computed
    return header;
  }

  @ParameterizedTest
  @MethodSource("malformedV2")
  void malformedV2IsRefusedWithItsReason(byte[] header, String reason) {
    assertThat(refusal(BOTH, header)).contains(reason);
  }

  @Test
  void aWrongFixedFieldIsRefusedAsSoonAsItArrives() {
    // Each defect is in the fixed 16 bytes: no need to wait for the rest of the header.
    assertThat(refusal(BOTH, Arrays.copyOf(V2Bytes.proxy(0x11).versionCommand(0x31).build(), 13)))
        .contains("version 3");
    assertThat(refusal(BOTH, Arrays.copyOf(V2Bytes.proxy(0x99).build(), 14)))
        .contains("address family 0x99");
    assertThat(refusal(BOTH, Arrays.copyOf(V2Bytes.proxy(0x21).bytes(new byte[12]).build(), 16)))
        .contains("too short for its IPv6 addresses");
  }

  @Test
  void aWrongSignatureByteIsRefusedAtThatByte() {
    byte[] header = V2Bytes.proxy(0x11).ipv4Addresses().build();
    for (int i = 1; i < 12; i++) {
      byte[] wrong = Arrays.copyOf(header, i + 1);
      wrong[i] ^= 0x40;
      assertThat(refusal(BOTH, wrong)).as("byte %d", i).startsWith("not a PROXY protocol header");
    }
  }

  // ---- versions a listener does not accept, and what is no header at all ----

  @Test
  void aVersionTheListenerDoesNotAcceptIsRefusedSayingSo() throws Exception {
    byte[] v1 = ascii("PROXY TCP4 192.0.2.1 192.0.2.2 1 2\r\n");
    byte[] v2 = V2Bytes.proxy(0x11).ipv4Addresses().build();
    assertThat(refusal(ONLY_V2, Arrays.copyOf(v1, 6)))
        .isEqualTo("a PROXY v1 header, and this listener accepts only v2");
    assertThat(refusal(ONLY_V1, Arrays.copyOf(v2, 12)))
        .isEqualTo("a PROXY v2 header, and this listener accepts only v1");
    parsesWhole(ONLY_V1, v1);
    parsesWhole(ONLY_V2, v2);
    assertThat(ONLY_V1.maxBytes()).isEqualTo(107);
    assertThat(ONLY_V2.maxBytes()).isEqualTo(MAX);
  }

  @Test
  void whatIsNoHeaderIsRefusedAtItsFirstByteAndNamed() {
    assertThat(refusal(BOTH, new byte[] {0x16, 0x03, 0x01, 0x02, 0x00}))
        .isEqualTo(
            "not a PROXY protocol header (it starts 16 03 01 02 00: a TLS handshake (is the load"
                + " balancer sending the header?))");
    assertThat(refusal(BOTH, ascii("GET / HTTP/1.1\r\n")))
        .isEqualTo("not a PROXY protocol header (it starts 'GET / HT...': text)");
    assertThat(refusal(BOTH, ascii("PRIX"))).contains("'PRIX'");
    assertThat(refusal(BOTH, ascii("proxy TCP4"))).startsWith("not a PROXY protocol header");
    assertThat(refusal(BOTH, new byte[] {0}))
        .isEqualTo("not a PROXY protocol header (it starts 00)");
    assertThat(HeaderChecks.parse(BOTH, new byte[0])).isInstanceOf(NeedMore.class);
    assertThat(HeaderChecks.parse(BOTH, ascii("PROX"))).isInstanceOf(NeedMore.class);
    assertThat(HeaderChecks.parse(BOTH, new byte[] {0x0D, 0x0A})).isInstanceOf(NeedMore.class);
  }
}
