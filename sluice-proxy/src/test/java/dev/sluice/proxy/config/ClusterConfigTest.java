package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster and limit options: their defaults, and clear refusals of what makes no sense. */
class ClusterConfigTest {
  @TempDir Path dir;

  private ProxyConfig read(String clusterExtra, String listenerExtra) throws ConfigException {
    return ConfigReader.read(
        """
        listeners:
          - name: front
            address: 127.0.0.1:7000
            cluster: c
        %s
        clusters:
          - name: c
            upstreams: [{address: 127.0.0.1:7001}, {address: "db.internal:5432", weight: 3}]
        %s
        """
            .formatted(listenerExtra, clusterExtra),
        "t.yaml",
        dir);
  }

  private List<Problem> problems(String clusterExtra, String listenerExtra) {
    try {
      read(clusterExtra, listenerExtra);
    } catch (ConfigException e) {
      return e.problems();
    }
    throw new AssertionError("expected problems");
  }

  @Test
  void everyClusterOptionHasItsDefault() throws Exception {
    ClusterConfig c = read("", "").clusters().getFirst();
    assertThat(c.balance()).isEqualTo(ClusterConfig.Balance.ROUNDROBIN);
    assertThat(c.healthCheck()).isNull();
    assertThat(c.passive()).isEqualTo(ClusterConfig.PassiveHealth.DEFAULTS);
    assertThat(c.retries()).isEqualTo(new ClusterConfig.Retries(3, Duration.ofSeconds(5)));
    assertThat(c.slowStart()).isZero();
    assertThat(c.resolveInterval()).isZero();
    assertThat(c.tls()).isNull();
    assertThat(c.upstreams().get(1).weight()).isEqualTo(3);
  }

  @Test
  void theOptionsAreReadAsWritten() throws Exception {
    ClusterConfig c =
        read(
                """
                balance: leastconn
                healthCheck: {type: send, interval: 500ms, timeout: 100ms, rise: 1, fall: 5, send: "PING\\r\\n", expect: "+PONG"}
                passive: {failures: 5, backoff: 1s, maxBackoff: 30s}
                retries: {tries: 2, within: 1s}
                slowStart: 30s
                resolveInterval: 10s
            """,
                "")
            .clusters()
            .getFirst();
    assertThat(c.balance()).isEqualTo(ClusterConfig.Balance.LEASTCONN);
    assertThat(c.healthCheck())
        .isEqualTo(
            new ClusterConfig.HealthCheck(
                ClusterConfig.CheckType.SEND,
                Duration.ofMillis(500),
                Duration.ofMillis(100),
                1,
                5,
                "PING\r\n",
                "+PONG"));
    assertThat(c.passive())
        .isEqualTo(
            new ClusterConfig.PassiveHealth(5, Duration.ofSeconds(1), Duration.ofSeconds(30)));
    assertThat(c.retries()).isEqualTo(new ClusterConfig.Retries(2, Duration.ofSeconds(1)));
    assertThat(c.slowStart()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.resolveInterval()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void theRetryWindowTheEjectionShareAndTheUpstreamHandshakeTimeoutAreReadAsWritten()
      throws Exception {
    ClusterConfig c =
        read(
                """
                passive: {maxEjectedPercent: 25%}
                retries: {within: none}
                tls: {handshakeTimeout: 2s}
            """,
                "")
            .clusters()
            .getFirst();
    assertThat(c.passive().maxEjectedPercent()).isEqualTo(25);
    assertThat(c.retries().within()).as("none: no limit").isZero();
    assertThat(c.tls().handshakeTimeout()).isEqualTo(Duration.ofSeconds(2));
    ClusterConfig plain =
        read("    passive: {maxEjectedPercent: 100}\n    tls: {}", "").clusters().getFirst();
    assertThat(plain.passive().maxEjectedPercent()).isEqualTo(100);
    assertThat(plain.tls().handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(problems("    passive: {maxEjectedPercent: 150%}", ""))
        .singleElement()
        .satisfies(p -> assertThat(p.path()).isEqualTo("clusters[0].passive.maxEjectedPercent"))
        .satisfies(p -> assertThat(p.message()).contains("0% to 100%"));
    assertThat(problems("    passive: {maxEjectedPercent: 101}", ""))
        .extracting(Problem::path)
        .containsExactly("clusters[0].passive.maxEjectedPercent");
  }

  @Test
  void theUpstreamSessionCacheSizeIsReadAndSenselessSizesRefused() throws Exception {
    ClusterConfig plain = read("    tls: {}", "").clusters().getFirst();
    assertThat(plain.tls().sessionCacheSize()).isEqualTo(256);
    ClusterConfig one = read("    tls: {sessionCache: {size: 1}}", "").clusters().getFirst();
    assertThat(one.tls().sessionCacheSize()).isEqualTo(1);
    for (String size : List.of("-1", "1000001", "many", "1.5")) {
      assertThat(problems("    tls: {sessionCache: {size: " + size + "}}", ""))
          .as(size)
          .extracting(Problem::path)
          .containsExactly("clusters[0].tls.sessionCache.size");
    }
    assertThat(problems("    tls: {sessionCache: {size: 10, timeout: 5m}}", ""))
        .extracting(Problem::path)
        .containsExactly("clusters[0].tls.sessionCache.timeout");
    // 0 (no resumption) on the client's default engine, the JDK's: its cache takes 0 as no limit.
    assertThat(problems("    tls: {sessionCache: {size: 0}, engine: jdk}", ""))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("needs the OpenSSL engine"));
    if (dev.sluice.tls.TlsEngineKind.openSslUnavailableReason() == null) {
      ClusterConfig none =
          read("    tls: {sessionCache: {size: 0}, engine: openssl}", "").clusters().getFirst();
      assertThat(none.tls().sessionCacheSize()).isZero();
    }
  }

  @Test
  void senselessClusterOptionsAreRefusedWithTheirPlace() {
    assertThat(problems("    balance: random", ""))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("roundrobin, leastconn, p2c, hash"));
    assertThat(problems("    healthCheck: {type: send, send: PING}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs send: and expect:"));
    assertThat(problems("    healthCheck: {type: tls}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs the cluster's tls"));
    assertThat(problems("    healthCheck: {interval: none}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs an interval"));
    assertThat(problems("    retries: {tries: 0}", ""))
        .extracting(Problem::path)
        .containsExactly("clusters[0].retries.tries");
    assertThat(problems("    passive: {backoff: 1m, maxBackoff: 5s}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("maxBackoff is shorter than backoff"));
    assertThat(problems("    tls: {ca: missing.pem}", ""))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("no such file"));
  }

  @Test
  void limitsAreReadAndSenselessOnesRefused() throws Exception {
    Limits limits =
        read(
                "",
                "    limits: {connectionsPerSecond: 100, burst: 200, perSourceAddress: 10,"
                    + " allow: [10.0.0.0/8, \"fd00::/8\"], deny: [10.1.2.3]}")
            .listeners()
            .getFirst()
            .limits();
    assertThat(limits.connectionsPerSecond()).isEqualTo(100);
    assertThat(limits.burst()).isEqualTo(200);
    assertThat(limits.perSourceAddress()).isEqualTo(10);
    assertThat(limits.allow()).extracting(Cidr::toString).containsExactly("10.0.0.0/8", "fd00::/8");
    assertThat(limits.deny().getFirst().prefix()).isEqualTo(32);
    assertThat(problems("", "    limits: {burst: 5}"))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("goes with connectionsPerSecond"));
    assertThat(problems("", "    limits: {requireSni: true}"))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("needs tls"));
    assertThat(problems("", "    limits: {allow: [10.0.0.0/33]}"))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("prefix length must be 0..32"));
    assertThat(problems("", "    limits: {deny: [example.com/8]}"))
        .extracting(Problem::message)
        .anyMatch(m -> m.contains("is not a network"));
  }

  @Test
  void aCidrMatchesItsNetworkOnly() throws Exception {
    Cidr net = Cidr.parse("10.1.0.0/16");
    assertThat(net.contains(java.net.InetAddress.getByName("10.1.255.3"))).isTrue();
    assertThat(net.contains(java.net.InetAddress.getByName("10.2.0.1"))).isFalse();
    assertThat(net.contains(java.net.InetAddress.getByName("::1"))).isFalse();
    assertThat(Cidr.parse("10.1.2.2/31").contains(java.net.InetAddress.getByName("10.1.2.3")))
        .isTrue();
    assertThat(Cidr.parse("0.0.0.0/0").contains(java.net.InetAddress.getByName("8.8.8.8")))
        .isTrue();
    assertThatThrownBy(() -> Cidr.parse("10.0.0.0/x")).hasMessageContaining("not a number");
  }
}
