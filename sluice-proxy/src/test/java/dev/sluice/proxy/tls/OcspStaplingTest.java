package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.OcspResponder;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.SClient;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import dev.sluice.tls.TlsEngineKind;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tls.ocsp: {staple: true}} against a real {@code openssl ocsp} responder on loopback: the
 * status it gives is stapled in TLS 1.3 and 1.2 (good, revoked), kept when the responder goes down,
 * a listener whose responder never answered still handshakes, without a staple, a refreshed
 * response replaces the one stapled, and each certificate chosen by SNI staples its own. The
 * default run is on OpenSSL ({@code engine: auto}), the {@code nio-jdk} matrix run on the JDK's
 * engine.
 */
class OcspStaplingTest {
  @TempDir static Path dir;
  private static OcspResponder pki;
  private static KillableEcho echo;

  @BeforeAll
  static void startResponder() throws Exception {
    pki = OcspResponder.start(dir);
    echo = KillableEcho.on("127.0.0.1");
  }

  @AfterAll
  static void stopResponder() throws Exception {
    pki.close();
    echo.close();
  }

  private static String config(Path chain, Path key) {
    return config("{cert: \"%s\", key: \"%s\"}".formatted(chain, key), "");
  }

  /** A stapling listener {@code front} with these certificate entries and more tls settings. */
  private static String config(String certificates, String moreTls) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: echo
            tls:
              certificates: [%s]
              ocsp: {staple: true}%s
        clusters:
          - {name: echo, upstreams: [{address: "%s"}]}
        """
        .formatted(certificates, moreTls, echo.address());
  }

  /** The engine this run's stapling listeners run on: OpenSSL unless the run is for the JDK's. */
  private static String expectedEngine() {
    boolean jdkRun = "jdk".equals(System.getProperty(TlsEngineKind.DEFAULT_PROPERTY));
    return jdkRun || TlsEngineKind.openSslUnavailableReason() != null ? "jdk" : "openssl";
  }

  /** The "This Update" line of the staple s_client printed. */
  private static String thisUpdate(String sClientOutput) {
    return sClientOutput
        .lines()
        .filter(line -> line.contains("This Update:"))
        .findFirst()
        .orElse("");
  }

  /** What s_client prints once the staple holds {@code wanted}, waiting for the first response. */
  private static String awaitStaple(ProxyFixture proxy, String wanted, String... options) {
    AtomicReference<String> last = new AtomicReference<>("");
    String[] args = new String[options.length + 1];
    args[0] = "-status";
    System.arraycopy(options, 0, args, 1, options.length);
    Await.until(
        () -> {
          try {
            last.set(SClient.run(proxy.address("front"), args));
          } catch (Exception e) {
            last.set(e.toString());
          }
          return last.get().contains(wanted);
        },
        () -> "a staple with '" + wanted + "'; s_client printed:\n" + last.get());
    return last.get();
  }

  @Test
  void aGoodCertificatesStatusIsStapledInTls13And12AndOutlivesTheResponder() throws Exception {
    try (ProxyFixture proxy = ProxyFixture.start(config(pki.goodChain, pki.goodKey), dir)) {
      assertThat(proxy.listener("front").tlsEngine()).isEqualTo(expectedEngine());
      String tls13 = awaitStaple(proxy, "Cert Status: good", "-tls1_3");
      assertThat(tls13).contains("OCSP Response Status: successful").contains("TLSv1.3");
      String tls12 = SClient.run(proxy.address("front"), "-status", "-tls1_2");
      assertThat(tls12)
          .contains("OCSP Response Status: successful")
          .contains("Cert Status: good")
          .contains("TLSv1.2");
      pki.stop();
      try {
        // Held until its nextUpdate (5 minutes on): the responder being down changes nothing.
        assertThat(SClient.run(proxy.address("front"), "-status")).contains("Cert Status: good");
      } finally {
        pki.startResponder();
      }
    }
  }

  @Test
  void aRevokedCertificateIsStapledAsRevoked() throws Exception {
    try (ProxyFixture proxy = ProxyFixture.start(config(pki.revokedChain, pki.revokedKey), dir)) {
      String out = awaitStaple(proxy, "Cert Status: revoked");
      assertThat(out).contains("OCSP Response Status: successful").contains("Revocation Time");
    }
  }

  @Test
  void aListenerWhoseResponderIsDownHandshakesWithoutAStaple() throws Exception {
    try (ProxyFixture proxy =
        ProxyFixture.start(config(pki.unansweredChain, pki.unansweredKey), dir)) {
      assertThat(proxy.listener("front").tlsEngine()).isEqualTo(expectedEngine());
      for (String version : new String[] {"-tls1_3", "-tls1_2"}) {
        String out = SClient.run(proxy.address("front"), "-status", version);
        assertThat(out).contains("OCSP response: no response sent").contains("Cipher is");
      }
    }
  }

  @Test
  void eachCertificateChosenBySniStaplesItsOwnResponse() throws Exception {
    String certificates =
        "{cert: \"%s\", key: \"%s\"}, {cert: \"%s\", key: \"%s\"}"
            .formatted(pki.alphaChain, pki.alphaKey, pki.betaChain, pki.betaKey);
    try (ProxyFixture proxy = ProxyFixture.start(config(certificates, ""), dir)) {
      assertThat(proxy.listener("front").tlsEngine()).isEqualTo(expectedEngine());
      for (String version : new String[] {"-tls1_3", "-tls1_2"}) {
        String alpha =
            awaitStaple(proxy, "Cert Status: good", "-servername", "alpha.test", version);
        assertThat(alpha).contains("Serial Number: 04").contains("CN = alpha.test");
        String beta =
            awaitStaple(proxy, "Cert Status: revoked", "-servername", "beta.test", version);
        assertThat(beta).contains("Serial Number: 05").contains("CN = beta.test");
      }
    }
  }

  @Test
  @Tag("slow") // half a minute or more: not in the BoringSSL run of the matrix
  void aRefreshedResponseIsStapledInsteadOfTheOldOne(@TempDir Path own) throws Exception {
    // Valid a minute, so Sluice asks again within half a minute; the answer then says revoked.
    try (OcspResponder shortLived = OcspResponder.start(own, 1);
        ProxyFixture proxy =
            ProxyFixture.start(config(shortLived.goodChain, shortLived.goodKey), own)) {
      assertThat(proxy.listener("front").tlsEngine()).isEqualTo(expectedEngine());
      String before = awaitStaple(proxy, "Cert Status: good");
      shortLived.revoke("01");
      String after = awaitStaple(proxy, "Cert Status: revoked");
      assertThat(after).contains("Serial Number: 01").contains("OCSP Response Status: successful");
      assertThat(thisUpdate(after)).isNotEmpty().isNotEqualTo(thisUpdate(before));
    }
  }

  @Test
  void engineOpensslStaplesAlsoWithATicketKeyFile() throws Exception {
    assumeTrue(TlsEngineKind.openSslUnavailableReason() == null, "OpenSSL cannot run here");
    byte[] ticketKey = new byte[80];
    new java.security.SecureRandom().nextBytes(ticketKey);
    Path keyFile =
        java.nio.file.Files.writeString(
            dir.resolve("ticket-keys"), java.util.Base64.getEncoder().encodeToString(ticketKey));
    String certificate = "{cert: \"%s\", key: \"%s\"}".formatted(pki.goodChain, pki.goodKey);
    String moreTls =
        "\n      engine: openssl\n      sessionTickets: {keyFile: \"%s\"}".formatted(keyFile);
    try (ProxyFixture proxy = ProxyFixture.start(config(certificate, moreTls), dir)) {
      assertThat(proxy.listener("front").tlsEngine()).isEqualTo("openssl");
      String out = awaitStaple(proxy, "Cert Status: good", "-tls1_3");
      assertThat(out).contains("OCSP Response Status: successful").contains("Serial Number: 01");
    }
  }

  @Test
  void staplingACertificateWithoutIssuerOrResponderIsAConfigError() {
    TestPki plain = TestPki.get(); // a leaf without its CA in the file, naming no responder
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> ConfigReader.read(config(plain.serverCert, plain.serverKey), "test.yaml", dir));
    assertThat(e.problems())
        .anySatisfy(
            p -> {
              assertThat(p.path()).endsWith("tls.ocsp.staple");
              assertThat(p.line()).isEqualTo(7);
              assertThat(p.message()).contains("issuer");
            });
  }
}
