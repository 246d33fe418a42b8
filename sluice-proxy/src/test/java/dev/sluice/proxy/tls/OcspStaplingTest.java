package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.OcspResponder;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.SClient;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tls.ocsp: {staple: true}} against a real {@code openssl ocsp} responder on loopback: the
 * status it gives is stapled in TLS 1.3 and 1.2 (good, revoked), kept when the responder goes down,
 * and a listener whose responder never answered still handshakes, without a staple. JDK engine
 * only: stapling is not implemented on OpenSSL, so {@code engine: auto} runs these listeners on the
 * JDK (and these tests are not in the {@code nio-jdk} matrix run, which would repeat them).
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
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: echo
            tls:
              certificates: [{cert: "%s", key: "%s"}]
              ocsp: {staple: true}
        clusters:
          - {name: echo, upstreams: [{address: "%s"}]}
        """
        .formatted(chain, key, echo.address());
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
      for (String version : new String[] {"-tls1_3", "-tls1_2"}) {
        String out = SClient.run(proxy.address("front"), "-status", version);
        assertThat(out).contains("OCSP response: no response sent").contains("Cipher is");
      }
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
