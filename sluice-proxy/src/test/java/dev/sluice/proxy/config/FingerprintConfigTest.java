package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.proxy.proxyprotocol.FingerprintTlvs;
import dev.sluice.testing.TestPki;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JA3/JA4 blocklists and the PROXY v2 fingerprint TLV types as configuration: what is accepted, and
 * each malformed entry a problem with its file, line and field.
 */
class FingerprintConfigTest {
  private static final String JA4 = "t13d1516h2_8daaf6152771_e5627efa2ab1";

  @TempDir Path dir;

  private String listener(String limits) {
    TestPki pki = TestPki.get();
    return """
        listeners:
          - name: front
            address: 127.0.0.1:7000
            cluster: echo
            tls: {certificates: [{cert: "%s", key: "%s"}]}
            limits:
        %s
        clusters:
          - name: echo
            upstreams: [{address: 127.0.0.1:7001}]
        """
        .formatted(pki.serverCert, pki.serverKey, limits);
  }

  @Test
  void blocklistsAreRead() throws Exception {
    ProxyConfig config =
        read(
            listener(
                """
                      ja3Blocklist: [E7D705A3286E19EA42F587B344EE6865, 0123456789abcdef0123456789abcdef]
                      ja4Blocklist: [%s, t12i0206Zz_000000000000_000000000000]
                """
                    .formatted(JA4)));
    Limits limits = config.listeners().getFirst().limits();
    assertThat(limits.ja3Blocklist())
        .containsExactly("e7d705a3286e19ea42f587b344ee6865", "0123456789abcdef0123456789abcdef");
    assertThat(limits.ja4Blocklist()).containsExactly(JA4, "t12i0206Zz_000000000000_000000000000");
    assertThat(config.clusters().getFirst().fingerprintTlvs()).isEqualTo(FingerprintTlvs.DEFAULTS);
  }

  @Test
  void aMalformedJa3IsAProblemWithItsFileLineAndField() {
    String yaml =
        listener(
            """
                  ja3Blocklist:
                    - e7d705a3286e19ea42f587b344ee6865
                    - e7d705a3286e19ea42f587b344ee686
            """);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.file()).isEqualTo("sluice.yaml");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "- e7d705a3286e19ea42f587b344ee686\n"));
    assertThat(problem.path()).isEqualTo("listeners[0].limits.ja3Blocklist[1]");
    assertThat(problem.message()).contains("32 hex digits");
  }

  @Test
  void malformedJa4sAreProblems() {
    for (String bad :
        List.of(
            "t13d1516h2_8daaf6152771", // no third part
            "x13d1516h2_8daaf6152771_e5627efa2ab1", // not t, q or d
            "t14d1516h2_8daaf6152771_e5627efa2ab1", // no such version
            "t13x1516h2_8daaf6152771_e5627efa2ab1", // neither d nor i
            "t13d151h2_8daaf6152771_e5627efa2ab1", // a count of one digit
            "t13d1516h2_8DAAF6152771_e5627efa2ab1", // hashes are lower case
            "t13d1516h2_8daaf615277_e5627efa2ab1", // 11 digits
            "t13d1516h-_8daaf6152771_e5627efa2ab1")) { // ALPN characters are alphanumeric
      String yaml = listener("      ja4Blocklist: [\"%s\"]".formatted(bad));
      Problem problem = onlyProblem(yaml);
      assertThat(problem.path()).as(bad).isEqualTo("listeners[0].limits.ja4Blocklist[0]");
      assertThat(problem.line()).as(bad).isEqualTo(lineOf(yaml, "ja4Blocklist"));
      assertThat(problem.message()).as(bad).contains("is not a fingerprint");
    }
  }

  @Test
  void aBlocklistNeedsTls() {
    String yaml =
        """
        listeners:
          - name: front
            address: 127.0.0.1:7000
            cluster: echo
            limits: {ja4Blocklist: [%s]}
        clusters:
          - {name: echo, upstreams: [{address: 127.0.0.1:7001}]}
        """
            .formatted(JA4);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].limits.ja4Blocklist");
    assertThat(problem.message()).contains("needs tls");
  }

  @Test
  void fingerprintTlvTypesAreOneByteOrNone() throws Exception {
    String cluster =
        """
        listeners:
          - {name: front, address: 127.0.0.1:7000, cluster: echo}
        clusters:
          - name: echo
            upstreams: [{address: 127.0.0.1:7001}]
            proxyProtocol: v2
            proxyProtocolTlvs: %s
        """;
    assertThat(read(cluster.formatted("{ja3: 0xE2, ja4: none}")).clusters().getFirst())
        .extracting(ClusterConfig::fingerprintTlvs)
        .isEqualTo(new FingerprintTlvs(0xE2, FingerprintTlvs.NOT_SENT));
    assertThat(read(cluster.formatted("{ja4: 230}")).clusters().getFirst())
        .extracting(ClusterConfig::fingerprintTlvs)
        .isEqualTo(new FingerprintTlvs(0xE0, 230));
    for (String bad : List.of("0x100", "0", "e0", "-1")) {
      String yaml = cluster.formatted("{ja3: \"%s\"}".formatted(bad));
      Problem problem = onlyProblem(yaml);
      assertThat(problem.path()).as(bad).isEqualTo("clusters[0].proxyProtocolTlvs.ja3");
      assertThat(problem.line()).as(bad).isEqualTo(lineOf(yaml, "proxyProtocolTlvs"));
    }
    Problem v1 = onlyProblem(cluster.replace("v2", "v1").formatted("{ja3: 0xE0}"));
    assertThat(v1.path()).isEqualTo("clusters[0].proxyProtocolTlvs");
    assertThat(v1.message()).contains("proxyProtocol: v2");
  }

  private ProxyConfig read(String yaml) throws ConfigException {
    return ConfigReader.read(yaml, "sluice.yaml", dir);
  }

  private Problem onlyProblem(String yaml) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> read(yaml));
    assertThat(e).as(yaml).isNotNull();
    assertThat(e.problems()).as(yaml).hasSize(1);
    return e.problems().getFirst();
  }

  private static int lineOf(String yaml, String marker) {
    int at = yaml.indexOf(marker);
    assertThat(at).as(marker).isNotNegative();
    return (int) yaml.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
  }
}
