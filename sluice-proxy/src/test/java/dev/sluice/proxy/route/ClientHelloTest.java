package dev.sluice.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.route.ClientHello.Invalid;
import dev.sluice.proxy.route.ClientHello.NeedMore;
import dev.sluice.proxy.route.ClientHello.Parsed;
import dev.sluice.proxy.route.ClientHello.Result;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading SNI and ALPN from the first bytes of a TLS connection: real ClientHellos from the JDK's
 * SSLEngine (TLS 1.3 and 1.2, with and without SNI and ALPN), cut at every byte and re-framed into
 * many records; hand-built malformed ones, each wrong in one way; size limits; and a seeded fuzz.
 */
class ClientHelloTest {
  private static final int MAX = 16 * 1024;
  private static final Result NEED_MORE = new NeedMore();
  private static final List<String> ALPN = List.of("h2", "http/1.1");
  private static final String HOST = "api.example.com";
  private static final Pattern LOWER_CASE_HOST =
      Pattern.compile("[a-z0-9_-]{1,63}(\\.[a-z0-9_-]{1,63})*");

  // ---- real ClientHellos from the JDK ----

  /** How the client engine is told (or not told) a server name. */
  enum Sni {
    /** An engine created for the host: the JDK sends it. */
    FROM_HOST,
    /** An engine created for the host, with an explicit SNIHostName list. */
    EXPLICIT,
    /** An engine created without a host. */
    NO_HOST,
    /** An engine created for the host, with the SNIHostName list emptied. */
    EMPTY_LIST;

    boolean sent() {
      return this == FROM_HOST || this == EXPLICIT;
    }
  }

  record Client(String protocol, Sni sni, boolean alpn) {
    Parsed expected() {
      return named(sni.sent() ? HOST : null, alpn ? ALPN : List.of());
    }

    @Override
    public String toString() {
      return protocol + ", SNI " + sni + (alpn ? ", ALPN " + ALPN : ", no ALPN");
    }
  }

  static Stream<Client> clients() {
    List<Client> clients = new ArrayList<>();
    for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
      for (Sni sni : Sni.values()) {
        for (boolean alpn : List.of(true, false)) {
          clients.add(new Client(protocol, sni, alpn));
        }
      }
    }
    return clients.stream();
  }

  /** TLS 1.3 and 1.2, each with SNI and ALPN and with neither: for the byte-by-byte tests. */
  static Stream<Client> someClients() {
    return clients()
        .filter(c -> c.sni() == Sni.NO_HOST ? !c.alpn() : c.sni() == Sni.FROM_HOST && c.alpn());
  }

  private static final Map<Client, byte[]> HELLOS = new ConcurrentHashMap<>();

  /** The first flight of a JDK client: one TLS record holding its ClientHello. */
  static byte[] jdkHello(Client client) {
    return HELLOS.computeIfAbsent(client, ClientHelloTest::wrapFirstFlight).clone();
  }

  private static SSLContext clientContext;

  private static synchronized SSLContext clientContext() throws Exception {
    if (clientContext == null) {
      clientContext = SSLContext.getInstance("TLS");
      clientContext.init(null, null, null);
    }
    return clientContext;
  }

  private static byte[] wrapFirstFlight(Client client) {
    return wrapFirstFlight(client.protocol(), client.sni(), client.alpn() ? ALPN : List.of(), HOST);
  }

  private static byte[] wrapFirstFlight(String protocol, Sni sni, List<String> alpn, String host) {
    try {
      SSLContext context = clientContext();
      SSLEngine engine =
          sni == Sni.NO_HOST ? context.createSSLEngine() : context.createSSLEngine(host, 443);
      engine.setUseClientMode(true);
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setProtocols(new String[] {protocol});
      switch (sni) {
        case EXPLICIT -> parameters.setServerNames(List.of(new SNIHostName(host)));
        case EMPTY_LIST -> parameters.setServerNames(List.of());
        default -> {}
      }
      parameters.setApplicationProtocols(alpn.toArray(String[]::new));
      engine.setSSLParameters(parameters);
      ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
      SSLEngineResult result = engine.wrap(ByteBuffer.allocate(0), out);
      assertThat(result.getStatus()).isEqualTo(SSLEngineResult.Status.OK);
      out.flip();
      byte[] bytes = new byte[out.remaining()];
      out.get(bytes);
      // The premise of the tests below: one handshake record holding exactly one ClientHello.
      assertThat(bytes[0]).isEqualTo((byte) 22);
      assertThat(u16(bytes, 3)).isEqualTo(bytes.length - 5);
      assertThat(bytes[5]).isEqualTo((byte) 1);
      assertThat(u24(bytes, 6)).isEqualTo(bytes.length - 9);
      return bytes;
    } catch (Exception e) {
      throw new AssertionError("cannot make a ClientHello for " + protocol, e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clients")
  void aRealClientHelloIsParsed(Client client) {
    byte[] hello = jdkHello(client);
    assertThat(parse(hello, MAX)).isEqualTo(client.expected());
  }

  @Test
  void theServerNameIsReportedInLowerCase() {
    byte[] hello = wrapFirstFlight("TLSv1.3", Sni.EXPLICIT, List.of(), "API.Example.COM");
    assertThat(parse(hello, MAX)).isEqualTo(named(HOST, List.of()));
  }

  @Test
  void aLongServerNameAndManyProtocolsSurvive() {
    String host = "a".repeat(63) + "." + "b".repeat(63) + ".example.com";
    List<String> alpn = List.of("h2", "http/1.1", "spdy/3.1", "x-custom-protocol");
    byte[] hello = wrapFirstFlight("TLSv1.3", Sni.EXPLICIT, alpn, host);
    assertThat(parse(hello, MAX)).isEqualTo(named(host, alpn));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("someClients")
  void everyPrefixOfARealClientHelloNeedsMoreUntilItIsComplete(Client client) {
    byte[] hello = jdkHello(client);
    assertPrefixes(hello, hello.length, MAX, client.expected());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("someClients")
  void bytesAfterTheClientHelloAreIgnored(Client client) {
    byte[] hello = jdkHello(client);
    // Early data (an application data record) and then whatever else the client sent.
    byte[] early = concat(record(23, 3, 3, bytes(300, 0x5a)), bytes(40, 0xff));
    assertPrefixes(concat(hello, early), hello.length, MAX, client.expected());
  }

  @Test
  void parseReadsFromPositionToLimitAndMovesNeither() {
    Client client = new Client("TLSv1.3", Sni.FROM_HOST, true);
    byte[] hello = jdkHello(client);
    byte[] around = concat(bytes(7, 0xee), hello, bytes(9, 0xee));
    // Garbage before the position would be an SSLv2 hello (0xee), so reading it would show.
    record At(ByteBuffer buffer, int start) {}
    for (At at :
        List.of(
            new At(ByteBuffer.wrap(around), 7),
            new At(ByteBuffer.allocateDirect(around.length).put(around).clear(), 7),
            new At(ByteBuffer.wrap(around).asReadOnlyBuffer(), 7),
            new At(ByteBuffer.wrap(around).slice(3, around.length - 3), 4))) {
      ByteBuffer buffer = at.buffer();
      int start = at.start();
      buffer.limit(start + hello.length).position(start);
      assertThat(names(ClientHello.parse(buffer, MAX))).isEqualTo(client.expected());
      assertThat(buffer.position()).isEqualTo(start);
      assertThat(buffer.limit()).isEqualTo(start + hello.length);

      buffer.limit(start + hello.length - 1);
      assertThat(ClientHello.parse(buffer, MAX)).isInstanceOf(NeedMore.class);
      assertThat(buffer.position()).isEqualTo(start);
    }
  }

  // ---- re-framed into several records ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("clients")
  void aClientHelloSplitIntoSeveralRecordsIsReassembled(Client client) {
    byte[] handshake = handshakeOf(jdkHello(client));
    Random random = new Random(0xC11E_0001L ^ client.toString().hashCode());
    for (int records : List.of(2, 3, 5, 17, 100)) {
      byte[] framed = reframe(handshake, randomCuts(random, handshake.length, records));
      assertThat(parse(framed, MAX)).as("%d records", records).isEqualTo(client.expected());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("someClients")
  void everyPrefixOfAReframedClientHelloNeedsMore(Client client) {
    byte[] handshake = handshakeOf(jdkHello(client));
    Random random = new Random(0xC11E_0002L ^ client.toString().hashCode());
    for (int records : List.of(2, 3, 29)) {
      int[] cuts = randomCuts(random, handshake.length, records);
      byte[] framed = reframe(handshake, cuts);
      assertPrefixes(framed, framed.length, MAX, client.expected());
    }
  }

  @Test
  void theHandshakeHeaderItselfMayBeSplitAcrossRecords() {
    Client client = new Client("TLSv1.3", Sni.FROM_HOST, true);
    byte[] handshake = handshakeOf(jdkHello(client));
    for (int first = 1; first <= 4; first++) {
      // first 1..4 bytes of the 4-byte header in one record, then the header's rest, then the body
      int[] cuts = first < 4 ? new int[] {first, 4} : new int[] {4};
      byte[] framed = reframe(handshake, cuts);
      assertPrefixes(framed, framed.length, MAX, client.expected());
    }
  }

  @Test
  void oneByteRecordsAreReassembled() {
    Client client = new Client("TLSv1.2", Sni.FROM_HOST, true);
    byte[] handshake = handshakeOf(jdkHello(client));
    int[] cuts = new int[handshake.length - 1];
    Arrays.setAll(cuts, i -> i + 1);
    byte[] framed = reframe(handshake, cuts);
    assertThat(framed.length).isEqualTo(handshake.length * 6);
    assertPrefixes(framed, framed.length, framed.length, client.expected());
  }

  @Test
  void aRecordAfterTheFirstThatIsNotAHandshakeIsInvalid() {
    byte[] handshake = handshakeOf(jdkHello(new Client("TLSv1.3", Sni.FROM_HOST, true)));
    byte[] first = record(22, 3, 1, Arrays.copyOfRange(handshake, 0, 50));
    byte[] rest = Arrays.copyOfRange(handshake, 50, handshake.length);
    assertInvalid(concat(first, record(23, 3, 3, rest)), MAX, "after the first record");
    assertInvalid(concat(first, record(20, 3, 3, new byte[] {1})), MAX, "content type 20");
    assertInvalid(concat(first, record(22, 0, 3, rest)), MAX, "version 0.3");
    assertInvalid(concat(first, record(22, 3, 3, new byte[0])), MAX, "record of 0 B");
  }

  // ---- hand-built ClientHellos: valid edge cases ----

  @Test
  void theHandBuiltClientHelloIsValid() {
    // Each malformed case below differs from this one in one way.
    assertThat(parse(new Hello().framed(), MAX)).isEqualTo(named(HOST, List.of("h2")));
  }

  @Test
  void aClientHelloWithoutExtensionsHasNoNameAndNoProtocols() {
    Hello hello = new Hello();
    hello.extensionsBlock = false;
    assertThat(parse(hello.framed(), MAX)).isEqualTo(named(null, List.of()));
    Hello empty = new Hello();
    empty.extensions.clear();
    assertThat(parse(empty.framed(), MAX)).isEqualTo(named(null, List.of()));
  }

  @Test
  void olderClientHelloVersionsAndRecordVersionsAreAccepted() {
    for (int version : List.of(0x0301, 0x0302, 0x0303)) {
      Hello hello = new Hello();
      hello.version = version;
      for (int minor : List.of(0, 1, 2, 3)) {
        assertThat(parse(record(22, 3, minor, hello.handshake()), MAX))
            .as("ClientHello 0x%04x in a 3.%d record", version, minor)
            .isEqualTo(named(HOST, List.of("h2")));
      }
    }
  }

  @Test
  void unknownExtensionsAndNameTypesAreSkipped() {
    Hello hello = new Hello();
    hello.extensions.addFirst(extension(0x0a0a, new byte[0])); // GREASE
    hello.extensions.add(1, extension(0xfe0d, bytes(200, 7))); // encrypted_client_hello
    hello.extensions.add(extension(21, new byte[40])); // padding
    assertThat(parse(hello.framed(), MAX)).isEqualTo(named(HOST, List.of("h2")));

    Hello otherType = new Hello();
    otherType.extensions.set(0, extension(0, serverNameList(entry(7, ascii("not-a-host!")))));
    assertThat(parse(otherType.framed(), MAX)).isEqualTo(named(null, List.of("h2")));

    Hello both = new Hello();
    both.extensions.set(
        0, extension(0, serverNameList(entry(7, ascii("x")), entry(0, ascii("b.example.com")))));
    assertThat(parse(both.framed(), MAX)).isEqualTo(named("b.example.com", List.of("h2")));
  }

  @Test
  void hostNamesAtTheLimitsAreAccepted() {
    String label = "a".repeat(63);
    String longest = label + "." + label + "." + label + "." + "b".repeat(61); // 253 B
    assertThat(longest).hasSize(253);
    for (String name :
        List.of(
            longest,
            "x",
            "under_score.example",
            "with-hyphen.example",
            "123.example",
            "Mixed.CASE")) {
      Hello hello = new Hello();
      hello.serverName(name);
      assertThat(parse(hello.framed(), MAX))
          .as(name)
          .isEqualTo(named(name.toLowerCase(Locale.ROOT), List.of("h2")));
    }
  }

  @Test
  void alpnProtocolsAreKeptInTheClientsOrder() {
    Hello hello = new Hello();
    hello.extensions.set(1, extension(16, alpnList("http/1.1", "h2", "h3")));
    assertThat(parse(hello.framed(), MAX)).isEqualTo(named(HOST, List.of("http/1.1", "h2", "h3")));
  }

  @Test
  void aSessionIdOf32BytesIsAccepted() {
    Hello hello = new Hello();
    hello.sessionId = bytes(32, 0x33);
    assertThat(parse(hello.framed(), MAX)).isEqualTo(named(HOST, List.of("h2")));
  }

  @Test
  void theLargestRecordIsAcceptedAndOneByteMoreIsNot() {
    int largest = 16384 + 2048;
    byte[] header = {22, 3, 1, (byte) (largest >> 8), (byte) largest};
    assertThat(parse(header, 64 * 1024)).isInstanceOf(NeedMore.class);
    header[4]++;
    assertInvalid(header, 64 * 1024, "record of 18433 B");
  }

  // ---- malformed ----

  static Stream<Arguments> malformed() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(
        Arguments.of(
            "an HTTP request",
            ascii("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
            "not a TLS handshake record"));
    cases.add(Arguments.of("an HTTP request line only", ascii("GET /"), "content type 71"));
    cases.add(
        Arguments.of("an alert record", record(21, 3, 3, new byte[] {2, 40}), "content type 21"));
    cases.add(
        Arguments.of(
            "an application data record", record(23, 3, 3, bytes(10, 1)), "content type 23"));
    cases.add(
        Arguments.of(
            "an SSLv2-style hello",
            new byte[] {(byte) 0x80, 0x2e, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10},
            "SSLv2"));
    cases.add(
        Arguments.of(
            "record version 2.0", record(22, 2, 0, new Hello().handshake()), "version 2.0"));
    cases.add(
        Arguments.of(
            "record version 4.1", record(22, 4, 1, new Hello().handshake()), "version 4.1"));
    cases.add(Arguments.of("a record of 0 B", new byte[] {22, 3, 1, 0, 0}, "record of 0 B"));
    cases.add(
        Arguments.of(
            "a record of 18433 B", new byte[] {22, 3, 1, 0x48, 0x01}, "record of 18433 B"));
    cases.add(
        Arguments.of(
            "a record of 65535 B", new byte[] {22, 3, 1, (byte) 0xff, (byte) 0xff}, "65535 B"));
    for (int type : List.of(0, 2, 11, 20)) {
      cases.add(
          Arguments.of(
              "handshake type " + type,
              record(22, 3, 1, handshake(type, new Hello().body())),
              "type " + type + ", not a ClientHello"));
    }
    for (int version : List.of(0x0300, 0x0304, 0x0200, 0xfefd, 0x0000, 0xffff)) {
      Hello hello = new Hello();
      hello.version = version;
      cases.add(
          Arguments.of(
              String.format(Locale.ROOT, "ClientHello version 0x%04x", version),
              hello.framed(),
              String.format(Locale.ROOT, "version 0x%04x", version)));
    }
    Hello sessionId = new Hello();
    sessionId.sessionId = bytes(33, 0x33);
    cases.add(Arguments.of("a session id of 33 B", sessionId.framed(), "session id of 33 B"));
    Hello oddSuites = new Hello();
    oddSuites.suites = new byte[] {0x13, 0x01, 0x00};
    cases.add(Arguments.of("3 B of cipher suites", oddSuites.framed(), "cipher suite list of 3 B"));
    Hello noSuites = new Hello();
    noSuites.suites = new byte[0];
    cases.add(Arguments.of("no cipher suites", noSuites.framed(), "cipher suite list of 0 B"));
    Hello noCompression = new Hello();
    noCompression.compressions = new byte[0];
    cases.add(
        Arguments.of("no compression methods", noCompression.framed(), "no compression methods"));
    for (int delta : List.of(1, -1, 100, -4)) {
      Hello hello = new Hello();
      hello.extensionsLengthDelta = delta;
      cases.add(Arguments.of("extensions length off by " + delta, hello.framed(), "extensions of"));
    }
    Hello overrun = new Hello();
    overrun.extensions.add(concat(u16(21), u16(10), bytes(5, 0)));
    cases.add(Arguments.of("an extension overrunning", overrun.framed(), "overruns"));
    Hello halfHeader = new Hello();
    halfHeader.extensions.add(new byte[] {0, 21, 0});
    cases.add(Arguments.of("half an extension header", halfHeader.framed(), "middle of a field"));
    Hello twoNames = new Hello();
    twoNames.extensions.add(extension(0, serverNameList(entry(0, ascii("b.example.com")))));
    cases.add(Arguments.of("two server_name extensions", twoNames.framed(), "two server_name"));
    Hello twoHosts = new Hello();
    twoHosts.extensions.set(
        0,
        extension(
            0, serverNameList(entry(0, ascii("a.example.com")), entry(0, ascii("b.example.com")))));
    cases.add(Arguments.of("two host names", twoHosts.framed(), "two host names"));
    String label = "a".repeat(63);
    for (String bad :
        List.of(
            "exa mple.com",
            "a/b.example.com",
            "example.com.",
            ".example.com",
            "a..example.com",
            "",
            "example.com:443",
            "*.example.com",
            "ex\u00e4mple.com",
            "a\u0000.example.com",
            "b".repeat(64) + ".example.com",
            label + "." + label + "." + label + "." + "b".repeat(62))) { // 254 B
      Hello hello = new Hello();
      hello.serverName(bad);
      cases.add(
          Arguments.of(
              "host name '" + printable(bad) + "' (" + bad.length() + " B)",
              hello.framed(),
              "not a host name"));
    }
    Hello emptyList = new Hello();
    emptyList.extensions.set(0, extension(0, u16(0)));
    cases.add(Arguments.of("an empty server_name list", emptyList.framed(), "server_name list"));
    Hello listMismatch = new Hello();
    listMismatch.extensions.set(
        0, extension(0, concat(u16(100), entry(0, ascii("a.example.com")))));
    cases.add(
        Arguments.of("a server_name list length off", listMismatch.framed(), "server_name list"));
    Hello nameOverrun = new Hello();
    nameOverrun.extensions.set(
        0, extension(0, withListLength(concat(new byte[] {0}, u16(40), ascii("a.example.com")))));
    cases.add(Arguments.of("a host name overrunning", nameOverrun.framed(), "overruns"));
    Hello noServerNameData = new Hello();
    noServerNameData.extensions.set(0, extension(0, new byte[0]));
    cases.add(Arguments.of("an empty server_name extension", noServerNameData.framed(), "ends in"));
    Hello emptyProtocol = new Hello();
    emptyProtocol.extensions.set(
        1, extension(16, withListLength(concat(alpnEntries("h2"), new byte[] {0}))));
    cases.add(Arguments.of("an empty ALPN entry", emptyProtocol.framed(), "ALPN protocol of 0 B"));
    Hello emptyAlpn = new Hello();
    emptyAlpn.extensions.set(1, extension(16, u16(0)));
    cases.add(Arguments.of("an empty ALPN list", emptyAlpn.framed(), "ALPN list"));
    Hello alpnOverrun = new Hello();
    alpnOverrun.extensions.set(
        1, extension(16, withListLength(concat(new byte[] {9}, ascii("h2")))));
    cases.add(
        Arguments.of("an ALPN entry overrunning", alpnOverrun.framed(), "ALPN protocol of 9 B"));
    Hello alpnMismatch = new Hello();
    alpnMismatch.extensions.set(1, extension(16, concat(u16(7), alpnEntries("h2"))));
    cases.add(Arguments.of("an ALPN list length off", alpnMismatch.framed(), "ALPN list"));
    Hello twoAlpn = new Hello();
    twoAlpn.extensions.add(extension(16, alpnList("h3")));
    cases.add(Arguments.of("two ALPN extensions", twoAlpn.framed(), "two ALPN"));
    Hello shortRandom = new Hello();
    cases.add(
        Arguments.of(
            "a ClientHello ending in its random",
            record(22, 3, 1, handshake(1, Arrays.copyOf(shortRandom.body(), 12))),
            "ends in its random"));
    cases.add(
        Arguments.of(
            "a ClientHello ending in its cipher suites",
            record(22, 3, 1, handshake(1, Arrays.copyOf(new Hello().body(), 2 + 32 + 1 + 2 + 1))),
            "ends in its cipher suites"));
    cases.add(
        Arguments.of(
            "a ClientHello of 1 B", record(22, 3, 1, handshake(1, new byte[] {3})), "ends in"));
    cases.add(
        Arguments.of(
            "an empty ClientHello", record(22, 3, 1, handshake(1, new byte[0])), "ends in"));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void aMalformedClientHelloIsInvalidWithAReason(String name, byte[] input, String word) {
    assertInvalid(input, MAX, word);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void aMalformedClientHelloStaysInvalidWhateverFollows(String name, byte[] input, String word) {
    // More bytes after the point of failure do not make it acceptable (nor throw).
    assertInvalid(concat(input, new Hello().framed()), MAX, word);
    assertInvalid(concat(input, bytes(MAX, 0)), MAX, word);
  }

  @Test
  void aMalformedClientHelloSplitIntoRecordsIsInvalidOnceTheFaultIsComplete() {
    Hello hello = new Hello();
    hello.serverName("example.com.");
    byte[] handshake = hello.handshake();
    byte[] framed = reframe(handshake, new int[] {3, 10, 60});
    assertInvalid(framed, MAX, "not a host name");
  }

  // ---- size limits ----

  @Test
  void aClientHelloLargerThanMaxBytesIsInvalid() {
    Client client = new Client("TLSv1.3", Sni.FROM_HOST, true);
    byte[] hello = jdkHello(client);
    byte[] large = withExtension(handshakeOf(hello), extension(21, new byte[20_000]));
    byte[] framed = reframe(large, 16384);

    assertInvalid(framed, MAX, "no complete ClientHello within 16384 B");
    // With room for it, the same bytes are a ClientHello, reassembled from two full records.
    assertThat(parse(framed, 64 * 1024)).isEqualTo(client.expected());
  }

  @Test
  void aClientHelloOneByteLargerThanMaxBytesIsInvalidAsSoonAsItsRecordHeaderIsSeen() {
    Client client = new Client("TLSv1.3", Sni.NO_HOST, true);
    byte[] hello = jdkHello(client);
    int max = hello.length - 1;
    for (int n = 0; n <= hello.length; n++) {
      Result result = parse(Arrays.copyOf(hello, n), max);
      if (n < 5) {
        assertThat(result).as("%d B", n).isInstanceOf(NeedMore.class);
      } else {
        assertThat(result)
            .as("%d B", n)
            .isEqualTo(new Invalid("no complete ClientHello within " + max + " B"));
      }
    }
    assertThat(parse(hello, hello.length)).isEqualTo(client.expected());
  }

  @Test
  void aSmallMaxBytesRefusesARealClientHelloSplitIntoRecords() {
    Client client = new Client("TLSv1.2", Sni.FROM_HOST, false);
    byte[] handshake = handshakeOf(jdkHello(client));
    byte[] framed = reframe(handshake, randomCuts(new Random(0xC11E_0003L), handshake.length, 6));
    assertThat(parse(framed, framed.length)).isEqualTo(client.expected());
    for (int max : List.of(framed.length - 1, framed.length / 2, 64, 5)) {
      assertInvalid(framed, max, "no complete ClientHello within " + max + " B");
    }
  }

  @Test
  void aDeclaredHandshakeLengthAboveMaxBytesIsInvalidOnceItsRecordIsComplete() {
    byte[] body = new Hello().body();
    byte[] message = concat(new byte[] {1}, u24(1 << 20), body); // says 1 MiB, holds less
    assertInvalid(record(22, 3, 1, message), MAX, "no complete ClientHello within 16384 B");
    // Even when the rest would fit in records under the limit: no NeedMore forever.
    assertInvalid(record(22, 3, 1, concat(new byte[] {1}, u24(MAX - 3))), MAX, "within 16384 B");
    // A record holding only the handshake header is enough.
    assertInvalid(record(22, 3, 1, concat(new byte[] {1}, u24(1 << 20))), MAX, "within 16384 B");
  }

  @Test
  void aDeclaredHandshakeLengthAboveMaxBytesIsInvalidAsSoonAsTheHandshakeHeaderIsSeen() {
    // The record is not complete yet, but its first 4 bytes already say the ClientHello cannot fit.
    byte[] body = new Hello().body();
    byte[] framed = record(22, 3, 1, concat(new byte[] {1}, u24(1 << 20), body));
    byte[] headers = Arrays.copyOf(framed, 5 + 4);
    assertInvalid(headers, MAX, "no complete ClientHello within 16384 B");
  }

  @Test
  void noNeedMoreOnceMaxBytesHaveArrived() {
    // A ClientHello that declares a length within maxBytes but arrives in records small enough
    // that their headers push the total past maxBytes before the message is complete.
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    stream.writeBytes(record(22, 3, 1, concat(new byte[] {1}, u24(MAX - 4), new byte[96])));
    while (stream.size() <= MAX + 200) {
      stream.writeBytes(record(22, 3, 3, new byte[100]));
    }
    byte[] bytes = stream.toByteArray();
    for (int n = MAX - 300; n <= bytes.length; n++) {
      Result result = parse(Arrays.copyOf(bytes, n), MAX);
      if (n <= MAX - 5) {
        assertThat(result).as("%d B", n).isInstanceOf(NeedMore.class);
      } else if (n > MAX) {
        assertThat(result)
            .as("%d B", n)
            .isEqualTo(new Invalid("no complete ClientHello within " + MAX + " B"));
      }
    }
  }

  // ---- read as it arrives ----

  @Test
  void aLargeClientHelloTrickledInIsReadInLinearWork() {
    // About 128 KiB: the most cipher suites and the largest extension block there can be, in
    // records of 16 KiB, arriving 64 B at a time.
    Hello hello = new Hello();
    hello.suites = bytes(65534, 0x13);
    int others = hello.extensions.stream().mapToInt(e -> e.length).sum();
    hello.extensions.add(extension(21, new byte[65535 - others - 4])); // padding
    byte[] handshake = hello.handshake();
    byte[] framed = reframe(handshake, 16 * 1024);
    int records = (handshake.length + 16 * 1024 - 1) / (16 * 1024);
    ClientHello.Reader reader = new ClientHello.Reader(1 << 20);
    int calls = 0;
    Result result = null;
    for (int n = 64; result == null || result instanceof NeedMore; n += 64) {
      result = reader.read(ByteBuffer.wrap(framed, 0, Math.min(n, framed.length)));
      calls++;
    }
    assertThat(names(result)).isEqualTo(named(HOST, List.of("h2")));
    assertThat(calls).isEqualTo((framed.length + 63) / 64);
    // Parsed from the start on every call, that would be some 8 record headers per call and the
    // message copied whole as often: 2,000 calls, 250 MB.
    assertThat(reader.recordHeadersRead()).isLessThanOrEqualTo(calls + records);
    assertThat(reader.bytesCopied()).isEqualTo(handshake.length);
  }

  @Test
  void readingAsBytesArriveDecidesAsReadingEachPrefixWhole() {
    List<byte[]> inputs = new ArrayList<>();
    Random random = new Random(0xC11E_0003L);
    for (Client client : someClients().toList()) {
      byte[] hello = jdkHello(client);
      inputs.add(hello);
      byte[] handshake = handshakeOf(hello);
      inputs.add(reframe(handshake, randomCuts(random, handshake.length, 7)));
      inputs.add(reframe(handshake, new int[] {2, 4}));
    }
    inputs.add(new Hello().framed());
    for (int i = 0; i < 300; i++) {
      byte[] input = inputs.get(random.nextInt(inputs.size()));
      for (int m = 1 + random.nextInt(3); m > 0; m--) {
        input = mutate(input, random);
      }
      inputs.add(input);
    }
    for (byte[] input : inputs) {
      for (int max : List.of(MAX, 300, Math.max(1, input.length - 1))) {
        // Until its decision, which it keeps (a detector decides once).
        ClientHello.Reader reader = new ClientHello.Reader(max);
        Result read = NEED_MORE;
        for (int n = 0;
            read instanceof NeedMore && n <= input.length;
            n += 1 + random.nextInt(24)) {
          Result whole = parse(Arrays.copyOf(input, n), max);
          read = reader.read(ByteBuffer.wrap(input, 0, n).asReadOnlyBuffer());
          if (!names(read).equals(whole)) {
            throw new AssertionError(
                "read as it came: "
                    + read
                    + ", whole: "
                    + whole
                    + ", "
                    + n
                    + " B of "
                    + input.length);
          }
        }
        if (!(read instanceof NeedMore)) {
          assertThat(reader.read(ByteBuffer.wrap(input))).isSameAs(read);
        }
      }
    }
  }

  // ---- seeded fuzz ----

  @Test
  void mutatedClientHellosNeverThrowAndNeedMoreOnlyForAStrictPrefix() {
    List<byte[]> seeds = new ArrayList<>();
    clients().forEach(c -> seeds.add(jdkHello(c)));
    Random random = new Random(0xF022_2025L);
    for (Client client :
        List.of(
            new Client("TLSv1.3", Sni.FROM_HOST, true),
            new Client("TLSv1.2", Sni.NO_HOST, false))) {
      byte[] handshake = handshakeOf(jdkHello(client));
      seeds.add(reframe(handshake, randomCuts(random, handshake.length, 4)));
    }
    seeds.add(new Hello().framed());

    int needMore = 0;
    int parsed = 0;
    int invalid = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] seed = seeds.get(random.nextInt(seeds.size()));
      byte[] input = seed;
      for (int m = 1 + random.nextInt(4); m > 0; m--) {
        input = mutate(input, random);
      }
      int max =
          switch (random.nextInt(8)) {
            case 0 -> Math.max(1, input.length - 1);
            case 1 -> Math.max(1, input.length);
            case 2 -> 1 + random.nextInt(600);
            default -> MAX;
          };
      Result result = checkedParse(input, max, i);
      switch (result) {
        case NeedMore _ -> needMore++;
        case Parsed _ -> parsed++;
        case Invalid _ -> invalid++;
      }
      if (result instanceof NeedMore) {
        // Only a strict prefix of something longer: it never holds more than maxBytes, and more
        // bytes (of anything) up to maxBytes + 1 always decide it.
        check(input.length <= max, i, input, max, "NeedMore with more than maxBytes");
        byte[] longer = concat(input, noise(random, max + 1 - input.length));
        check(
            !(checkedParse(longer, max, i) instanceof NeedMore),
            i,
            longer,
            max,
            "NeedMore with more than maxBytes");
      }
      // A prefix is decided the same way, or not yet: once decided, more bytes change nothing.
      int cut = input.length == 0 ? 0 : random.nextInt(input.length);
      Result prefix = checkedParse(Arrays.copyOf(input, cut), max, i);
      switch (prefix) {
        case NeedMore _ -> {}
        case Parsed p ->
            check(
                p.equals(result), i, input, max, "cut at " + cut + ": " + p + ", whole: " + result);
        case Invalid v ->
            check(
                result instanceof Invalid,
                i,
                input,
                max,
                "cut at " + cut + ": " + v + ", whole: " + result);
      }
    }
    // The mutations reach all three outcomes, so the checks above were exercised.
    assertThat(needMore).isPositive();
    assertThat(parsed).isPositive();
    assertThat(invalid).isPositive();
  }

  @Test
  void randomRecordsNeverThrow() {
    Random random = new Random(0xF022_2026L);
    for (int i = 0; i < 3_000; i++) {
      // Plausible headers, random lengths and contents: the fields that steer the parser.
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int records = 1 + random.nextInt(4);
      for (int r = 0; r < records; r++) {
        int length = random.nextInt(10) == 0 ? random.nextInt(65536) : random.nextInt(300);
        out.writeBytes(
            new byte[] {22, 3, (byte) random.nextInt(4), (byte) (length >> 8), (byte) length});
        byte[] fragment = randomBytes(random, Math.min(length, random.nextInt(400)));
        if (r == 0 && fragment.length > 0) {
          fragment[0] = 1;
        }
        out.writeBytes(fragment);
      }
      byte[] input = out.toByteArray();
      Result result = checkedParse(input, MAX, i);
      check(!(result instanceof NeedMore) || input.length <= MAX, i, input, MAX, "NeedMore");
    }
  }

  private static Result checkedParse(byte[] input, int max, int iteration) {
    ByteBuffer buffer = ByteBuffer.wrap(input);
    Result result;
    try {
      result = ClientHello.parse(buffer, max);
    } catch (RuntimeException | Error e) {
      throw new AssertionError(context(iteration, input, max) + " threw " + e, e);
    }
    check(result != null, iteration, input, max, "null result");
    check(
        buffer.position() == 0 && buffer.limit() == input.length,
        iteration,
        input,
        max,
        "the buffer was moved");
    switch (result) {
      case NeedMore _ -> {}
      case Invalid v -> check(!v.reason().isBlank(), iteration, input, max, "no reason");
      case Parsed p -> {
        String name = p.serverName();
        check(
            name == null || (name.length() <= 253 && LOWER_CASE_HOST.matcher(name).matches()),
            iteration,
            input,
            max,
            "not a lower-case host name: " + name);
        check(
            p.protocols().stream().noneMatch(String::isEmpty),
            iteration,
            input,
            max,
            "an empty protocol in " + p.protocols());
      }
    }
    return result;
  }

  private static void check(boolean ok, int iteration, byte[] input, int max, String what) {
    if (!ok) {
      throw new AssertionError(context(iteration, input, max) + ": " + what);
    }
  }

  private static String context(int iteration, byte[] input, int max) {
    String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 64));
    return "iteration "
        + iteration
        + ", maxBytes "
        + max
        + ", "
        + input.length
        + " B: "
        + hex
        + (input.length > 64 ? "..." : "");
  }

  private static byte[] mutate(byte[] input, Random random) {
    int n = input.length;
    int at = n == 0 ? 0 : random.nextInt(n);
    return switch (random.nextInt(9)) {
      case 0 -> { // flip a bit
        if (n == 0) {
          yield input;
        }
        byte[] out = input.clone();
        out[at] ^= (byte) (1 << random.nextInt(8));
        yield out;
      }
      case 1 -> { // a random byte
        if (n == 0) {
          yield input;
        }
        byte[] out = input.clone();
        out[at] = (byte) random.nextInt(256);
        yield out;
      }
      case 2 -> // insert bytes
          concat(
              Arrays.copyOfRange(input, 0, at),
              randomBytes(random, 1 + random.nextInt(8)),
              Arrays.copyOfRange(input, at, n));
      case 3 -> { // delete bytes
        int end = Math.min(n, at + 1 + random.nextInt(8));
        yield concat(Arrays.copyOfRange(input, 0, at), Arrays.copyOfRange(input, end, n));
      }
      case 4 -> Arrays.copyOf(input, n == 0 ? 0 : random.nextInt(n)); // truncate
      case 5, 6 -> { // a random length: a 16- or 24-bit field gets a near or far value
        int width = random.nextInt(3) == 0 ? 3 : 2;
        if (at + width > n) {
          yield input;
        }
        byte[] out = input.clone();
        int old = width == 2 ? u16(out, at) : u24(out, at);
        int value =
            switch (random.nextInt(5)) {
              case 0 -> old + 1;
              case 1 -> old - 1;
              case 2 -> 0;
              case 3 -> (1 << (8 * width)) - 1;
              default -> random.nextInt(1 << (8 * width));
            };
        for (int k = 0; k < width; k++) {
          out[at + k] = (byte) (value >> (8 * (width - 1 - k)));
        }
        yield out;
      }
      case 7 -> { // duplicate a slice
        int end = Math.min(n, at + 1 + random.nextInt(40));
        yield concat(
            Arrays.copyOfRange(input, 0, end),
            Arrays.copyOfRange(input, at, end),
            Arrays.copyOfRange(input, end, n));
      }
      default -> concat(input, randomBytes(random, 1 + random.nextInt(32))); // append
    };
  }

  // ---- assertions ----

  /** The result, a ClientHello's offer left out: these tests are about its names. */
  private static Result parse(byte[] bytes, int maxBytes) {
    return names(ClientHello.parse(ByteBuffer.wrap(bytes), maxBytes));
  }

  private static Result names(Result result) {
    return result instanceof Parsed p ? named(p.serverName(), p.protocols()) : result;
  }

  /** A parsed ClientHello with these names (its offer is FingerprintTest's subject). */
  static Parsed named(String serverName, List<String> protocols) {
    return new Parsed(serverName, protocols, null);
  }

  /**
   * Every prefix shorter than {@code complete} needs more; every longer one is {@code expected}.
   */
  private static void assertPrefixes(byte[] bytes, int complete, int maxBytes, Result expected) {
    // Plain checks, not AssertJ: this runs for every byte of every ClientHello.
    for (int n = 0; n <= bytes.length; n++) {
      Result result;
      try {
        result = parse(Arrays.copyOf(bytes, n), maxBytes);
      } catch (RuntimeException e) {
        throw new AssertionError("the prefix of " + n + " B threw " + e, e);
      }
      if (n < complete ? !(result instanceof NeedMore) : !expected.equals(result)) {
        throw new AssertionError(
            "the prefix of "
                + n
                + " B (complete at "
                + complete
                + " B): expected "
                + (n < complete ? "NeedMore" : expected)
                + ", got "
                + result);
      }
    }
  }

  private static void assertInvalid(byte[] bytes, int maxBytes, String word) {
    Result result;
    try {
      result = parse(bytes, maxBytes);
    } catch (RuntimeException e) {
      throw new AssertionError("threw " + e, e);
    }
    if (!(result instanceof Invalid invalid) || !invalid.reason().contains(word)) {
      throw new AssertionError(
          "expected Invalid saying '" + word + "', got " + result + " for " + bytes.length + " B");
    }
  }

  // ---- building ClientHellos ----

  /** A hand-built ClientHello: each field can be made wrong on its own. */
  static final class Hello {
    int version = 0x0303;
    byte[] random = bytes(32, 0x11);
    byte[] sessionId = new byte[0];
    byte[] suites = {0x13, 0x01, 0x00, 0x2f};
    byte[] compressions = {0};
    boolean extensionsBlock = true;
    int extensionsLengthDelta = 0;
    final List<byte[]> extensions =
        new ArrayList<>(
            List.of(
                extension(0, serverNameList(entry(0, ascii(HOST)))),
                extension(16, alpnList("h2")),
                extension(43, new byte[] {2, 3, 4}))); // supported_versions

    void serverName(String name) {
      extensions.set(
          0, extension(0, serverNameList(entry(0, name.getBytes(StandardCharsets.ISO_8859_1)))));
    }

    byte[] body() {
      byte[] head =
          concat(
              u16(version),
              random,
              new byte[] {(byte) sessionId.length},
              sessionId,
              u16(suites.length),
              suites,
              new byte[] {(byte) compressions.length},
              compressions);
      if (!extensionsBlock) {
        return head;
      }
      byte[] all = concat(extensions.toArray(byte[][]::new));
      return concat(head, u16(all.length + extensionsLengthDelta), all);
    }

    byte[] handshake() {
      return handshake(1, body());
    }

    byte[] framed() {
      return record(22, 3, 1, handshake());
    }

    private static byte[] handshake(int type, byte[] body) {
      return ClientHelloTest.handshake(type, body);
    }
  }

  static byte[] handshake(int type, byte[] body) {
    return concat(new byte[] {(byte) type}, u24(body.length), body);
  }

  static byte[] record(int type, int major, int minor, byte[] fragment) {
    return concat(
        new byte[] {(byte) type, (byte) major, (byte) minor}, u16(fragment.length), fragment);
  }

  /** The handshake message of a one-record first flight. */
  static byte[] handshakeOf(byte[] record) {
    return Arrays.copyOfRange(record, 5, record.length);
  }

  /** The handshake message in one record per piece, cut at {@code cuts} (ascending). */
  static byte[] reframe(byte[] handshake, int[] cuts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : handshake.length;
      out.writeBytes(record(22, 3, i == 0 ? 1 : 3, Arrays.copyOfRange(handshake, from, to)));
      from = to;
    }
    return out.toByteArray();
  }

  /** The handshake message in records of at most {@code fragment} bytes. */
  static byte[] reframe(byte[] handshake, int fragment) {
    int[] cuts = new int[(handshake.length - 1) / fragment];
    Arrays.setAll(cuts, i -> (i + 1) * fragment);
    return reframe(handshake, cuts);
  }

  /** {@code pieces - 1} distinct ascending cut points strictly inside {@code 0..length}. */
  static int[] randomCuts(Random random, int length, int pieces) {
    return random.ints(1, length).distinct().limit(pieces - 1).sorted().toArray();
  }

  /** The handshake message of a ClientHello record with one more extension at the end. */
  static byte[] withExtension(byte[] handshake, byte[] extension) {
    byte[] body = Arrays.copyOfRange(handshake, 4, handshake.length);
    int p = 2 + 32;
    p += 1 + (body[p] & 0xff);
    p += 2 + u16(body, p);
    p += 1 + (body[p] & 0xff);
    int extensionsLength = u16(body, p);
    assertThat(p + 2 + extensionsLength).isEqualTo(body.length);
    byte[] newBody =
        concat(
            Arrays.copyOf(body, p),
            u16(extensionsLength + extension.length),
            Arrays.copyOfRange(body, p + 2, body.length),
            extension);
    return handshake(1, newBody);
  }

  static byte[] extension(int type, byte[] data) {
    return concat(u16(type), u16(data.length), data);
  }

  static byte[] entry(int nameType, byte[] name) {
    return concat(new byte[] {(byte) nameType}, u16(name.length), name);
  }

  static byte[] serverNameList(byte[]... entries) {
    return withListLength(concat(entries));
  }

  static byte[] alpnEntries(String... protocols) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String p : protocols) {
      out.write(p.length());
      out.writeBytes(ascii(p));
    }
    return out.toByteArray();
  }

  static byte[] alpnList(String... protocols) {
    return withListLength(alpnEntries(protocols));
  }

  static byte[] withListLength(byte[] list) {
    return concat(u16(list.length), list);
  }

  static byte[] u16(int value) {
    return new byte[] {(byte) (value >> 8), (byte) value};
  }

  static byte[] u24(int value) {
    return new byte[] {(byte) (value >> 16), (byte) (value >> 8), (byte) value};
  }

  static int u16(byte[] b, int at) {
    return (b[at] & 0xff) << 8 | (b[at + 1] & 0xff);
  }

  static int u24(byte[] b, int at) {
    return (b[at] & 0xff) << 16 | u16(b, at + 1);
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] bytes(int n, int value) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static final byte[] NOISE = randomBytes(new Random(0x0015EL), 64 * 1024);

  /** {@code n} random bytes, cheaply: a slice of a fixed random pool at a random offset. */
  static byte[] noise(Random random, int n) {
    int from = random.nextInt(NOISE.length - n + 1);
    return Arrays.copyOfRange(NOISE, from, from + n);
  }

  static byte[] randomBytes(Random random, int n) {
    byte[] b = new byte[Math.max(0, n)];
    random.nextBytes(b);
    return b;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      b.append(
          c >= 0x20 && c < 0x7f
              ? String.valueOf(c)
              : String.format(Locale.ROOT, "\\x%02x", (int) c));
    }
    return b.length() > 40
        ? b.substring(0, 20) + "..." + b.substring(b.length() - 12)
        : b.toString();
  }
}
