package dev.sluice.proxy.route;

import static dev.sluice.proxy.route.ClientHelloTest.alpnList;
import static dev.sluice.proxy.route.ClientHelloTest.concat;
import static dev.sluice.proxy.route.ClientHelloTest.u16;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.route.ClientHello.Invalid;
import dev.sluice.proxy.route.ClientHello.NeedMore;
import dev.sluice.proxy.route.ClientHello.Offer;
import dev.sluice.proxy.route.ClientHello.Parsed;
import dev.sluice.proxy.route.ClientHello.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * JA3 and JA4 against published vectors and against ClientHellos of real clients.
 *
 * <p>The captures in {@code hellos/} are the raw bytes (hex) of one ClientHello each:
 *
 * <ul>
 *   <li>{@code foxio-*}: the ClientHello of the first TCP stream of the pcap of that name in
 *       FoxIO's JA4 repository ({@code pcap/}, extracted with {@code tshark -T fields -e
 *       tcp.payload}); the expected JA4 and JA4_r are FoxIO's own, from {@code
 *       python/test/testdata/<pcap>.json}.
 *   <li>the others: sent by a client on this machine to a listener that read one ClientHello and
 *       closed (Debian 12: OpenSSL 3.0, curl 7.88.1, gnutls-cli 3.7.9, Python 3's ssl on OpenSSL
 *       3.0). The expected values were computed by independent implementations from a pcap of the
 *       bytes ({@code text2pcap -T 50000,443}): JA3 by tshark 4.0 ({@code tls.handshake.ja3}), JA4
 *       by FoxIO's {@code python/ja4.py}.
 * </ul>
 *
 * The JA3 of every capture is tshark 4.0's ({@code tls.handshake.ja3}).
 */
class FingerprintTest {

  // ---- published vectors ----

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // FoxIO's pcap/tls-sni.pcapng, stream 0 (Chrome)
        "foxio-tls-sni|1c258ebef8eee2dfa3df6d8d07285af9|t13d1516h2_8daaf6152771_e5627efa2ab1|"
            + "t13d1516h2_002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9"
            + "_0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01"
            + "_0403,0804,0401,0503,0805,0501,0806,0601",
        // FoxIO's pcap/tls12.pcap, stream 0 (Firefox)
        "foxio-tls12|579ccef312d18482fc42e2b822ca2430|t13d1715h2_5b57614c22b0_3d5424432f57|"
            + "t13d1715h2_002f,0035,009c,009d,1301,1302,1303,c009,c00a,c013,c014,c02b,c02c,c02f,c030,"
            + "cca8,cca9_0005,000a,000b,000d,0015,0017,001c,0022,0023,002b,002d,0033,ff01"
            + "_0403,0503,0603,0804,0805,0806,0401,0501,0601,0203,0201",
        // FoxIO's pcap/tls-alpn-h2.pcap, stream 0: TLS 1.2 only, 46 suites, 5 extensions
        "foxio-tls-alpn-h2|3faa4ad39f690c4ef1c3160caa375465|t12d4605h2_85626a9a5f7f_aaf95bb78ec9|"
            + "t12d4605h2_0004,0005,000a,0016,002f,0033,0035,0039,003c,003d,0041,0045,0067,006b,0081,"
            + "0084,0088,009c,009d,009e,009f,00ba,00be,00c0,00c4,00ff,c007,c008,c009,c00a,c011,c012,"
            + "c013,c014,c023,c024,c027,c028,c02b,c02c,c02f,c030,cca8,cca9,ccaa,ff85_000a,000b,000d"
            + "_0601,0603,efef,0501,0503,0401,0403,eeee,eded,0301,0303,0201,0203",
        // FoxIO's pcap/tls3.pcapng, stream 7 (Chrome, GREASE in every list)
        "foxio-tls3|b4c783785c9d8ca60b7713f36e48c407|t13d1516h2_8daaf6152771_e5627efa2ab1|"
            + "t13d1516h2_002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9"
            + "_0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01"
            + "_0403,0804,0401,0503,0805,0501,0806,0601",
      })
  void foxioCapturesHaveTheirPublishedJa4(String capture, String ja3, String ja4, String raw) {
    Offer offer = offer(capture);
    assertThat(Ja4.of(offer)).isEqualTo(ja4);
    assertThat(Ja4.raw(offer)).isEqualTo(raw);
    assertThat(Ja3.of(offer)).isEqualTo(ja3);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // openssl s_client -connect HOST:PORT -servername example.test
    "openssl-default, a3afc2c46ba4a7d7fbe1cfb7a3031c2f, t13d311000_e8f1e7e78f70_1f22a2ca17c4",
    // openssl s_client -servername example.test -tls1_2 -alpn h2,http/1.1
    "openssl-tls12-alpn, 22558766122974704364c9c75c5cce0a, t12d2808h2_d943125447b4_e7e480e5a997",
    // openssl s_client -noservername -tls1_3
    //   -ciphersuites TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256 -groups X25519:P-256
    "openssl-tls13-noname, 260c289d521f040e81c69b40d11ee2fc, t13i030900_cee661580557_78f1d400d464",
    // curl -k --resolve example.test:PORT:127.0.0.1 https://example.test:PORT/
    "curl, 0149f47eabf9a20d0893e2a44e5a6323, t13d3112h2_e8f1e7e78f70_b26ce05bbdd6",
    // gnutls-cli --insecure -p PORT --sni-hostname example.test 127.0.0.1
    "gnutls-cli, f35ce21b44ac0b87d3266294bb1b0e20, t13d291300_723694b0fccc_2cc26d266019",
    // Python: ssl.create_default_context() (no verification), ALPN h2 and http/1.1,
    // server_hostname example.test
    "python-ssl, 304734bb1c086c3453b387400cf83f11, t13d1812h2_85036bcba153_d41ae481755e",
  })
  void realClientsMatchIndependentImplementations(String capture, String ja3, String ja4) {
    Offer offer = offer(capture);
    assertThat(Ja3.of(offer)).isEqualTo(ja3);
    assertThat(Ja4.of(offer)).isEqualTo(ja4);
    assertThat(Fingerprint.of(offer)).isEqualTo(new Fingerprint(ja3, ja4));
  }

  @Test
  void ja3MatchesSalesforcesExamples() {
    // Salesforce's ja3 README, "How it works": the text of a hello with extensions, and its MD5.
    Builder withExtensions =
        new Builder(0x0301, 47, 53, 5, 10, 49161, 49162, 49171, 49172, 50, 56, 19, 4)
            .extension(0, serverName("example.com"))
            .extension(10, list16(23, 24, 25))
            .extension(11, list8(0));
    Offer offer = withExtensions.offer();
    assertThat(Ja3.text(offer))
        .isEqualTo("769,47-53-5-10-49161-49162-49171-49172-50-56-19-4,0-10-11,23-24-25,0");
    assertThat(Ja3.of(offer)).isEqualTo("ada70206e40642a3e4461f35503241d5");
    // "If there are no SSL Extensions in the Client Hello, the fields are left empty."
    Offer none = new Builder(0x0301, 4, 5, 10, 9, 100, 98, 3, 6, 19, 18, 99).noExtensions().offer();
    assertThat(Ja3.text(none)).isEqualTo("769,4-5-10-9-100-98-3-6-19-18-99,,,");
    assertThat(Ja3.of(none)).isEqualTo("de350869b8c85de67a350c8d186f11e6");
  }

  @Test
  void ja4HashesMatchFoxiosSpecification() {
    // FoxIO's technical_details/JA4.md, "Cipher hash" and "Extension hash".
    assertThat(
            Ja4.hash("002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9"))
        .isEqualTo("8daaf6152771");
    String extensions = "0005,000a,000b,000d,0012,0015,0017,001b,0023,002b,002d,0033,4469,ff01";
    assertThat(Ja4.hash(extensions + "_0403,0804,0401,0503,0805,0501,0806,0601"))
        .isEqualTo("e5627efa2ab1");
    assertThat(Ja4.hash(extensions)).isEqualTo("6d807ffa2a79");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    // FoxIO's technical_details/JA4.md, "ALPN Extension Value": the protocol's bytes in hex.
    "ab, ab",
    "20, 20",
    "abcd, ad",
    "2061, 21",
    "30ab, 3b",
    "6120, 60",
    "3031abcd, 3d",
    "30abcd31, 01",
    // Alphanumeric ends: the characters themselves; one character is both.
    "6832, h2", // h2
    "687474702f312e31, h1", // http/1.1
    "68, hh", // h
    "5a, ZZ", // Z
  })
  void alpnFollowsTheSpecification(String protocolHex, String expected) {
    String protocol = new String(HexFormat.of().parseHex(protocolHex), StandardCharsets.ISO_8859_1);
    assertThat(Ja4.alpn(List.of(protocol, "h2"))).isEqualTo(expected);
  }

  @Test
  void noAlpnIsZeroZero() {
    assertThat(Ja4.alpn(List.of())).isEqualTo("00");
    Offer offer = new Builder(0x0303, 0x1301).extension(43, list8(0x0304)).offer();
    assertThat(Ja4.of(offer)).startsWith("t13i010100_");
  }

  // ---- edge cases, hand-built ----

  @Test
  void greaseIsLeftOutEverywhere() {
    Builder plain = sample();
    Builder greased =
        new Builder(0x0303, 0x1a1a, 0x1301, 0x1302, 0xc02b)
            .extension(0x2a2a, new byte[0])
            .extension(0, serverName("example.com"))
            .extension(10, list16(0x3a3a, 29, 23))
            .extension(11, list8(0))
            .extension(13, list16(0x0403, 0x0804))
            .extension(16, alpnList("h2"))
            .extension(43, list8(0x4a4a, 0x0304, 0x0303))
            .extension(0xfafa, new byte[] {0});
    assertThat(Fingerprint.of(greased.offer())).isEqualTo(Fingerprint.of(plain.offer()));
    // JA4 by hand: TLS 1.3 from supported_versions, SNI, 3 suites, 6 extensions, ALPN h2;
    // sha256("1301,1302,c02b"), sha256("000a,000b,000d,002b_0403,0804"), first 12 hex digits.
    assertThat(Ja4.raw(plain.offer()))
        .isEqualTo("t13d0306h2_1301,1302,c02b_000a,000b,000d,002b_0403,0804");
    assertThat(Ja4.of(plain.offer()))
        .isEqualTo(
            "t13d0306h2_"
                + Ja4.hash("1301,1302,c02b")
                + "_"
                + Ja4.hash("000a,000b,000d,002b_0403,0804"));
    // JA3 by hand: the legacy version, the lists in the client's order, decimal.
    assertThat(Ja3.text(plain.offer())).isEqualTo("771,4865-4866-49195,0-10-11-13-16-43,29-23,0");
  }

  /** The GREASE-free twin of the hello in {@link #greaseIsLeftOutEverywhere}. */
  private static Builder sample() {
    return new Builder(0x0303, 0x1301, 0x1302, 0xc02b)
        .extension(0, serverName("example.com"))
        .extension(10, list16(29, 23))
        .extension(11, list8(0))
        .extension(13, list16(0x0403, 0x0804))
        .extension(16, alpnList("h2"))
        .extension(43, list8(0x0304, 0x0303));
  }

  @Test
  void greaseIsEveryValueOfTheFormAndNoOther() {
    List<Integer> grease = new ArrayList<>();
    for (int v = 0; v <= 0xffff; v++) {
      if (Grease.is(v)) {
        grease.add(v);
      }
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      expected.add(i << 12 | 0xa << 8 | i << 4 | 0xa);
    }
    assertThat(grease).isEqualTo(expected);
  }

  @Test
  void countsStopAt99() {
    int[] suites = new int[120];
    for (int i = 0; i < suites.length; i++) {
      suites[i] = 0x0100 + i;
    }
    Builder many = new Builder(0x0303, suites);
    for (int i = 0; i < 105; i++) {
      many.extension(0x1000 + i, new byte[0]);
    }
    assertThat(Ja4.of(many.offer())).startsWith("t12i999900_");
  }

  @Test
  void emptyListsHashToZeros() {
    // Every suite GREASE, no extension but SNI and ALPN: neither list has a value to hash.
    Builder hollow =
        new Builder(0x0303, 0x0a0a, 0x1a1a)
            .extension(0, serverName("example.com"))
            .extension(16, alpnList("http/1.1"));
    assertThat(Ja4.of(hollow.offer())).isEqualTo("t12d0002h1_000000000000_000000000000");
    Offer bare = new Builder(0x0301, 0x002f).noExtensions().offer();
    assertThat(Ja4.of(bare)).isEqualTo("t10i010000_" + Ja4.hash("002f") + "_000000000000");
    assertThat(Ja3.text(bare)).isEqualTo("769,47,,,");
  }

  @Test
  void theVersionIsTheHighestSupportedOneElseTheLegacyOne() {
    assertThat(Ja4.of(new Builder(0x0303, 0x1301).offer())).startsWith("t12");
    assertThat(Ja4.of(new Builder(0x0302, 0x1301).offer())).startsWith("t11");
    Offer listed = new Builder(0x0303, 0x1301).extension(43, list8(0x0302, 0x0304, 0x0303)).offer();
    assertThat(Ja4.of(listed)).startsWith("t13");
    // A draft version nobody names: "00", as the specification says of unknown ones.
    Offer draft = new Builder(0x0303, 0x1301).extension(43, list8(0x7f1c)).offer();
    assertThat(Ja4.of(draft)).startsWith("t00");
    // JA3 takes the ClientHello's own version whatever supported_versions says.
    assertThat(Ja3.text(listed)).startsWith("771,");
  }

  // ---- malformed and truncated ----

  @Test
  void malformedListExtensionsAreInvalid() {
    assertInvalid(sample().extension(10, new byte[] {0, 3, 0, 29, 0}), "supported_groups");
    assertInvalid(sample().extension(10, new byte[] {0, 4, 0, 29}), "supported_groups");
    assertInvalid(sample().extension(11, new byte[0]), "ec_point_formats");
    assertInvalid(sample().extension(11, new byte[] {2, 0}), "ec_point_formats");
    assertInvalid(sample().extension(13, new byte[] {0, 2, 4, 3, 8}), "signature_algorithms");
    assertInvalid(sample().extension(13, new byte[] {0}), "signature_algorithms");
    assertInvalid(sample().extension(43, new byte[] {3, 3, 4, 3}), "supported_versions");
    assertInvalid(sample().extension(43, new byte[] {1, 3}), "supported_versions");
  }

  @Test
  void everyPrefixOfACaptureNeedsMoreAndTheWholeOneHasItsFingerprint() {
    byte[] hello = capture("curl");
    for (int n = 0; n < hello.length; n++) {
      Result result = ClientHello.parse(ByteBuffer.wrap(hello, 0, n).slice(), 1 << 16);
      if (!(result instanceof NeedMore)) {
        throw new AssertionError(n + " B of " + hello.length + ": " + result);
      }
    }
    // Split into records of 7 bytes each, the fingerprint is the same.
    byte[] handshake = Arrays.copyOfRange(hello, 5, hello.length);
    List<byte[]> records = new ArrayList<>();
    for (int at = 0; at < handshake.length; at += 7) {
      byte[] fragment = Arrays.copyOfRange(handshake, at, Math.min(at + 7, handshake.length));
      records.add(ClientHelloTest.record(22, 3, 1, fragment));
    }
    Result split =
        ClientHello.parse(ByteBuffer.wrap(concat(records.toArray(byte[][]::new))), 1 << 16);
    assertThat(split).isInstanceOf(Parsed.class);
    assertThat(Fingerprint.of(((Parsed) split).offer())).isEqualTo(Fingerprint.of(offer("curl")));
  }

  @Test
  void aCaptureCutShortInsideAnExtensionIsInvalidWhenItsLengthsSayItEnded() {
    // The handshake and record lengths shortened with the message: a hello that ends early.
    byte[] hello = capture("openssl-default");
    int cut = hello.length - 40;
    byte[] shortened = Arrays.copyOf(hello, cut);
    int handshake = cut - 9;
    shortened[3] = (byte) ((cut - 5) >> 8);
    shortened[4] = (byte) (cut - 5);
    shortened[6] = (byte) (handshake >> 16);
    shortened[7] = (byte) (handshake >> 8);
    shortened[8] = (byte) handshake;
    assertThat(ClientHello.parse(ByteBuffer.wrap(shortened), 1 << 16)).isInstanceOf(Invalid.class);
  }

  // ---- helpers ----

  private static void assertInvalid(Builder hello, String word) {
    Result result = ClientHello.parse(ByteBuffer.wrap(hello.framed()), 1 << 16);
    assertThat(result).isInstanceOf(Invalid.class);
    assertThat(((Invalid) result).reason()).contains(word);
  }

  private static Offer offer(String capture) {
    Result result = ClientHello.parse(ByteBuffer.wrap(capture(capture)), 1 << 16);
    assertThat(result).as(capture).isInstanceOf(Parsed.class);
    return ((Parsed) result).offer();
  }

  static byte[] capture(String name) {
    try (InputStream in = FingerprintTest.class.getResourceAsStream("hellos/" + name + ".hex")) {
      assertThat(in).as(name).isNotNull();
      return HexFormat.of()
          .parseHex(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] serverName(String host) {
    byte[] name = host.getBytes(StandardCharsets.US_ASCII);
    byte[] entry = concat(new byte[] {0}, u16(name.length), name);
    return concat(u16(entry.length), entry);
  }

  private static byte[] list16(int... values) {
    byte[] b = new byte[2 + 2 * values.length];
    b[0] = (byte) (2 * values.length >> 8);
    b[1] = (byte) (2 * values.length);
    for (int i = 0; i < values.length; i++) {
      b[2 + 2 * i] = (byte) (values[i] >> 8);
      b[3 + 2 * i] = (byte) values[i];
    }
    return b;
  }

  /** A list with a one-byte length: of bytes (point formats) or, above 0xff, of 16-bit values. */
  private static byte[] list8(int... values) {
    boolean wide = Arrays.stream(values).anyMatch(v -> v > 0xff);
    byte[] b = new byte[1 + (wide ? 2 : 1) * values.length];
    b[0] = (byte) (b.length - 1);
    for (int i = 0; i < values.length; i++) {
      if (wide) {
        b[1 + 2 * i] = (byte) (values[i] >> 8);
        b[2 + 2 * i] = (byte) values[i];
      } else {
        b[1 + i] = (byte) values[i];
      }
    }
    return b;
  }

  /** A ClientHello of chosen suites and extensions, in one record. */
  private static final class Builder {
    private final int version;
    private final int[] suites;
    private final List<byte[]> extensions = new ArrayList<>();
    private boolean extensionsBlock = true;

    Builder(int version, int... suites) {
      this.version = version;
      this.suites = suites;
    }

    Builder extension(int type, byte[] data) {
      extensions.add(ClientHelloTest.extension(type, data));
      return this;
    }

    Builder noExtensions() {
      extensionsBlock = false;
      return this;
    }

    byte[] framed() {
      byte[] suiteBytes = new byte[2 * suites.length];
      for (int i = 0; i < suites.length; i++) {
        suiteBytes[2 * i] = (byte) (suites[i] >> 8);
        suiteBytes[2 * i + 1] = (byte) suites[i];
      }
      byte[] body =
          concat(
              u16(version),
              new byte[32],
              new byte[] {0},
              u16(suiteBytes.length),
              suiteBytes,
              new byte[] {1, 0});
      if (extensionsBlock) {
        byte[] all = concat(extensions.toArray(byte[][]::new));
        body = concat(body, u16(all.length), all);
      }
      return ClientHelloTest.record(22, 3, 1, ClientHelloTest.handshake(1, body));
    }

    Offer offer() {
      Result result = ClientHello.parse(ByteBuffer.wrap(framed()), 1 << 16);
      assertThat(result).isInstanceOf(Parsed.class);
      return ((Parsed) result).offer();
    }
  }
}
