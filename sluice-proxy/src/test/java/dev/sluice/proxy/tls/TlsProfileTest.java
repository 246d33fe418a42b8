package dev.sluice.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Problem;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.SClient;
import dev.sluice.testing.TestPki;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tls.profile}, {@code tls.ciphers} and {@code tls.cipherSuites} on a terminating listener,
 * seen by openssl s_client: what each profile lets through and refuses, OpenSSL and IANA names, and
 * config errors that say where.
 */
class TlsProfileTest {
  @TempDir Path dir;

  private String config(KillableEcho echo, String tls) {
    TestPki pki = TestPki.get();
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
        .formatted(pki.serverCert, pki.serverKey, tls.stripTrailing(), echo.address());
  }

  private static boolean handshakes(ProxyFixture proxy, String... options) throws Exception {
    String out = SClient.run(proxy.address("front"), options);
    return out.contains("Cipher is ") && !out.contains("Cipher is (NONE)");
  }

  @Test
  void theDefaultRefusesCbcAndRsaKeyExchangeAndTakesEcdheGcm() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(config(echo, ""), dir)) {
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256")).isTrue();
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA")).isFalse();
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "DHE-RSA-AES128-GCM-SHA256")).isFalse();
      assertThat(handshakes(proxy, "-tls1_1")).isFalse();
      assertThat(handshakes(proxy, "-tls1_3")).isTrue();
    }
  }

  @Test
  void modernIsTls13Only() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(config(echo, "      profile: modern"), dir)) {
      assertThat(handshakes(proxy, "-tls1_3")).isTrue();
      assertThat(handshakes(proxy, "-tls1_2")).isFalse();
    }
  }

  @Test
  void oldOffersCbcSuitesOverTls12() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(config(echo, "      profile: old"), dir)) {
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA")).isTrue();
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "DHE-RSA-AES256-GCM-SHA384")).isTrue();
    }
  }

  @Test
  void configuredSuitesInOpenSslAndIanaNamesReplaceTheProfiles() throws Exception {
    String tls =
        """
              ciphers: [ECDHE-RSA-AES256-GCM-SHA384]
              cipherSuites: [TLS_CHACHA20_POLY1305_SHA256]
        """;
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(config(echo, tls), dir)) {
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384")).isTrue();
      assertThat(handshakes(proxy, "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256")).isFalse();
      assertThat(handshakes(proxy, "-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"))
          .isTrue();
      assertThat(handshakes(proxy, "-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256")).isFalse();
    }
  }

  @Test
  void unknownMisplacedOrUnsupportedNamesAreErrorsWithTheirPlace() throws Exception {
    String tls =
        """
              ciphers:
                - ECDHE-RSA-AES128-GCM-SHA256
                - ECDHE-RSA-AES128-FOO
                - TLS_AES_128_GCM_SHA256
                - DES-CBC3-SHA
              groups: [x25519, brainpool]
              profile: newest
        """;
    try (KillableEcho echo = KillableEcho.on("127.0.0.1")) {
      ConfigException e =
          catchThrowableOfType(
              ConfigException.class, () -> ConfigReader.read(config(echo, tls), "test.yaml", dir));
      assertThat(e.problems())
          .extracting(Problem::line, Problem::path)
          .contains(
              org.assertj.core.groups.Tuple.tuple(9, "listeners[0].tls.ciphers[1]"),
              org.assertj.core.groups.Tuple.tuple(10, "listeners[0].tls.ciphers[2]"),
              org.assertj.core.groups.Tuple.tuple(11, "listeners[0].tls.ciphers[3]"),
              org.assertj.core.groups.Tuple.tuple(12, "listeners[0].tls.groups[1]"),
              org.assertj.core.groups.Tuple.tuple(13, "listeners[0].tls.profile"));
      assertThat(e.getMessage())
          .contains("'ECDHE-RSA-AES128-FOO' is not a cipher suite name")
          .contains("'TLS_AES_128_GCM_SHA256' is a TLS 1.3 suite: list it under cipherSuites")
          .contains("'DES-CBC3-SHA' is not a suite this JVM can negotiate");
    }
  }
}
