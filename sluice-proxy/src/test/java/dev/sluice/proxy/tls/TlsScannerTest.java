package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.TestPki;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The reference TLS listener (the test PKI's RSA certificate, every TLS setting at its default) as
 * the scanners see it: sslscan (fast, its XML) and a focused testssl.sh run (its JSON). Nothing
 * obsolete is offered, renegotiation is refused, and testssl finds nothing HIGH, CRITICAL or "NOT
 * ok" but for what {@link #EXCUSED} lists.
 */
class TlsScannerTest {
  /**
   * testssl findings that are not the listener's fault, by id: none of the checks run here judges
   * the certificate's trust (that is testssl's -S, left out), so nothing is excused yet; an id
   * added here must say why.
   */
  static final Map<String, String> EXCUSED = Map.of();

  @TempDir Path dir;

  private static String reference(TestPki pki, KillableEcho echo, String tlsExtra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: echo
            tls:
              certificates: [{cert: "%s", key: "%s"}]
        %s
        clusters:
          - {name: echo, upstreams: [{address: "%s"}]}
        """
        .formatted(pki.serverCert, pki.serverKey, tlsExtra, echo.address());
  }

  /**
   * The suites sslscan found accepted, by protocol: {@code TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256}.
   */
  private static List<String> accepted(Document xml) {
    List<String> suites = new ArrayList<>();
    NodeList ciphers = xml.getElementsByTagName("cipher");
    for (int i = 0; i < ciphers.getLength(); i++) {
      Element cipher = (Element) ciphers.item(i);
      if (cipher.getAttribute("status").matches("accepted|preferred")) {
        suites.add(cipher.getAttribute("sslversion") + " " + cipher.getAttribute("cipher"));
      }
    }
    return suites;
  }

  private static Document sslscan(ProxyFixture proxy) throws Exception {
    int port = ((InetSocketAddress) proxy.address("front")).getPort();
    String xml = run(List.of("sslscan", "--no-colour", "--xml=-", "127.0.0.1:" + port));
    xml = xml.substring(xml.indexOf("<?xml"));
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  /** What sslscan finds wrong: obsolete protocols, CBC or weak suites, insecure renegotiation. */
  static List<String> sslscanFindings(Document xml) {
    List<String> wrong = new ArrayList<>();
    NodeList protocols = xml.getElementsByTagName("protocol");
    for (int i = 0; i < protocols.getLength(); i++) {
      Element p = (Element) protocols.item(i);
      String name = p.getAttribute("type") + p.getAttribute("version");
      if (p.getAttribute("enabled").equals("1") && !name.matches("tls1\\.[23]")) {
        wrong.add("protocol " + name + " enabled");
      }
    }
    for (String suite : accepted(xml)) {
      String cipher = suite.substring(suite.indexOf(' ') + 1);
      boolean tls13 = suite.startsWith("TLSv1.3");
      boolean aead = cipher.contains("GCM") || cipher.contains("CHACHA20");
      if (!tls13 && (!aead || !cipher.startsWith("ECDHE-"))) {
        wrong.add("CBC or non-ECDHE suite " + suite);
      }
      if (cipher.matches(".*(RC4|DES|NULL|EXP|ADH|AECDH|MD5).*")) {
        wrong.add("weak suite " + suite);
      }
    }
    NodeList renegotiation = xml.getElementsByTagName("renegotiation");
    for (int i = 0; i < renegotiation.getLength(); i++) {
      Element r = (Element) renegotiation.item(i);
      if (r.getAttribute("supported").equals("1") && !r.getAttribute("secure").equals("1")) {
        wrong.add("insecure renegotiation supported");
      }
    }
    return wrong;
  }

  @Test
  void sslscanFindsNoObsoleteProtocolNoCbcNoWeakSuiteAndNoInsecureRenegotiation() throws Exception {
    TestPki pki = TestPki.get();
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(reference(pki, echo, ""), dir)) {
      Document xml = sslscan(proxy);
      List<String> suites = accepted(xml);
      assertThat(suites)
          .as("what sslscan saw accepted")
          .contains("TLSv1.3 TLS_AES_128_GCM_SHA256", "TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256");
      assertThat(sslscanFindings(xml)).isEmpty();
    }
  }

  /** The mutation check: the same scan flags a listener that offers CBC suites again. */
  @Test
  @Tag("slow") // half a minute or more: not in the BoringSSL run of the matrix
  void sslscanFlagsCbcSuitesWhenTheyAreConfigured() throws Exception {
    TestPki pki = TestPki.get();
    String cbc =
        """
              ciphers: [ECDHE-RSA-AES128-GCM-SHA256, ECDHE-RSA-AES128-SHA256, ECDHE-RSA-AES256-SHA]
        """;
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(reference(pki, echo, cbc.stripTrailing()), dir)) {
      assertThat(sslscanFindings(sslscan(proxy)))
          .contains(
              "CBC or non-ECDHE suite TLSv1.2 ECDHE-RSA-AES128-SHA256",
              "CBC or non-ECDHE suite TLSv1.2 ECDHE-RSA-AES256-SHA");
    }
  }

  @Test
  @Tag("slow") // half a minute or more: not in the BoringSSL run of the matrix
  void testsslFindsNothingNotOkAndRenegotiationIsRefusedAndCounted() throws Exception {
    TestPki pki = TestPki.get();
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(reference(pki, echo, ""), dir)) {
      int port = ((InetSocketAddress) proxy.address("front")).getPort();
      Path json = dir.resolve("testssl.json");
      run(
          List.of(
              "testssl",
              "--quiet",
              "--color",
              "0",
              "--warnings",
              "off",
              "--ip",
              "one",
              "--jsonfile",
              json.toString(),
              "-p",
              "-s",
              "-R",
              "-U",
              "127.0.0.1:" + port));
      String findings = Files.readString(json);
      List<String> wrong = new ArrayList<>();
      Matcher object = Pattern.compile("\\{[^{}]*\\}").matcher(findings);
      int entries = 0;
      while (object.find()) {
        entries++;
        String id = field(object.group(), "id");
        String severity = field(object.group(), "severity");
        String finding = field(object.group(), "finding");
        boolean bad = severity.matches("HIGH|CRITICAL|MEDIUM") || finding.contains("NOT ok");
        if (bad && !EXCUSED.containsKey(id)) {
          wrong.add(id + " " + severity + ": " + finding);
        }
        if (id.equals("secure_client_renego")) {
          assertThat(finding).as("client-initiated renegotiation").contains("not vulnerable");
        }
      }
      assertThat(entries).as("testssl's findings in " + findings).isGreaterThan(20);
      assertThat(findings).contains("\"secure_client_renego\"");
      assertThat(wrong).isEmpty();
      // testssl tried to renegotiate: the pair ended with its own cause.
      assertThat(proxy.closedPairs().stream().map(Pair::cause))
          .contains(CloseCause.TLS_RENEGOTIATION_REFUSED);
    }
  }

  /** A string field of one testssl JSON object, or "". */
  private static String field(String object, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]*)\"").matcher(object);
    return m.find() ? m.group(1) : "";
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException(command.getFirst() + " did not finish: " + output);
    }
    return output;
  }
}
