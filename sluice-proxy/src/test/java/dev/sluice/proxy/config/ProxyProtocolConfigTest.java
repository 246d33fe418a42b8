package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PROXY protocol options on listeners and clusters: defaults, values, and clear refusals. */
class ProxyProtocolConfigTest {
  @TempDir Path dir;

  private ProxyConfig read(String listenerExtra, String clusterExtra) throws ConfigException {
    return ConfigReader.read(
        """
        listeners:
          - name: front
            address: 127.0.0.1:7000
            cluster: c
        %s
        clusters:
          - name: c
            upstreams: [{address: 127.0.0.1:7001}]
        %s
        """
            .formatted(listenerExtra, clusterExtra),
        "t.yaml",
        dir);
  }

  private List<Problem> problems(String listenerExtra, String clusterExtra) {
    try {
      read(listenerExtra, clusterExtra);
    } catch (ConfigException e) {
      return e.problems();
    }
    throw new AssertionError("expected problems");
  }

  @Test
  void withoutTheOptionNothingIsReadOrSent() throws Exception {
    ProxyConfig config = read("", "");
    assertThat(config.listeners().getFirst().proxyProtocol()).isNull();
    assertThat(config.clusters().getFirst().proxyProtocol()).isNull();
  }

  @Test
  void aListenerTakesBothVersionsWithinFiveSecondsByDefault() throws Exception {
    ListenerProxyProtocol p =
        read("    proxyProtocol: {trustedSources: [10.0.0.0/8, \"fd00::/8\"]}", "")
            .listeners()
            .getFirst()
            .proxyProtocol();
    assertThat(p.versions()).containsExactlyInAnyOrder(Version.V1, Version.V2);
    assertThat(p.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(p.maxHeaderBytes()).isEqualTo(4096);
    assertThat(p.optional()).isFalse();
    assertThat(p.trustedSources()).hasSize(2);
    assertThat(p.trustedSources().getFirst().contains(InetAddress.getByName("10.1.2.3"))).isTrue();
  }

  @Test
  void theOptionsAreReadAsWritten() throws Exception {
    ListenerProxyProtocol p =
        read(
                """
                    proxyProtocol:
                      trustedSources: [192.0.2.0/24]
                      versions: [v2]
                      timeout: 750ms
                      maxHeaderBytes: 1KiB
                      optional: true
                """,
                "    proxyProtocol: v2")
            .listeners()
            .getFirst()
            .proxyProtocol();
    assertThat(p.versions()).isEqualTo(Set.of(Version.V2));
    assertThat(p.timeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(p.maxHeaderBytes()).isEqualTo(1024);
    assertThat(p.optional()).isTrue();
    assertThat(read("", "    proxyProtocol: v1").clusters().getFirst().proxyProtocol())
        .isEqualTo(Version.V1);
    assertThat(
            read("    proxyProtocol: {trustedSources: [0.0.0.0/0], timeout: none}", "")
                .listeners()
                .getFirst()
                .proxyProtocol()
                .timeout())
        .isZero();
  }

  @Test
  void senselessOptionsAreRefusedWithTheirFieldAndReason() {
    assertThat(problems("    proxyProtocol: {timeout: 1s}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("trustedSources"));
    assertThat(problems("    proxyProtocol: {trustedSources: []}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs the networks of the load balancers"));
    assertThat(problems("    proxyProtocol: {trustedSources: [10.0.0.0/33]}", ""))
        .extracting(Problem::path)
        .anyMatch(path -> path.startsWith("listeners[0].proxyProtocol.trustedSources"));
    assertThat(problems("    proxyProtocol: {trustedSources: [10.0.0.0/8], versions: [v3]}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("'v3' is not a PROXY protocol version: v1 or v2"));
    assertThat(problems("    proxyProtocol: {trustedSources: [10.0.0.0/8], versions: []}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs at least one version"));
    assertThat(
            problems("    proxyProtocol: {trustedSources: [10.0.0.0/8], maxHeaderBytes: 64}", ""))
        .extracting(Problem::path)
        .containsExactly("listeners[0].proxyProtocol.maxHeaderBytes");
    assertThat(
            problems(
                "    proxyProtocol: {trustedSources: [10.0.0.0/8], versions: [v1],"
                    + " maxHeaderBytes: 1KiB}",
                ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("maxHeaderBytes is for v2 headers"));
    assertThat(problems("    proxyProtocol: {trustedSources: [10.0.0.0/8], strict: true}", ""))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("listeners[0].proxyProtocol.strict");
              assertThat(p.message()).contains("unknown field").contains("optional");
            });
    assertThat(problems("", "    proxyProtocol: v3"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("clusters[0].proxyProtocol");
              assertThat(p.line()).isEqualTo(9);
            });
  }
}
