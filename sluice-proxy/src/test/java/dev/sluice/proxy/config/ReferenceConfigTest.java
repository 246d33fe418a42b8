package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.TestPki;
import dev.sluice.tls.TlsClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference configuration that ships with the proxy parses, and means what it says. */
class ReferenceConfigTest {
  private static final Path REFERENCE = Path.of("config", "reference.yaml");

  @TempDir Path dir;

  @Test
  void theReferenceConfigurationParsesWithTheFilesItNames() throws Exception {
    TestPki pki = TestPki.get();
    Files.copy(pki.serverCert, dir.resolve("server.crt"));
    Files.copy(pki.serverKey, dir.resolve("server.key"));
    Files.copy(pki.caCert, dir.resolve("clients-ca.pem"));
    Files.copy(pki.caCert, dir.resolve("server-ca.pem"));
    Files.copy(pki.clientCert, dir.resolve("client.crt"));
    Files.copy(pki.clientKey, dir.resolve("client.key"));
    KeyStore p12 = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(pki.serverP12)) {
      p12.load(in, TestPki.PASSWORD);
    }
    KeyStore other = KeyStore.getInstance("PKCS12");
    other.load(null, null);
    String alias = p12.aliases().nextElement();
    other.setEntry(
        alias,
        p12.getEntry(alias, new KeyStore.PasswordProtection(TestPki.PASSWORD)),
        new KeyStore.PasswordProtection("changeit".toCharArray()));
    try (OutputStream out = Files.newOutputStream(dir.resolve("other.p12"))) {
      other.store(out, "changeit".toCharArray());
    }
    Path copy = dir.resolve("reference.yaml");
    Files.copy(REFERENCE, copy);

    ProxyConfig config = ConfigReader.read(copy);

    assertThat(config.listeners())
        .extracting(ListenerConfig::name)
        .containsExactly("plain", "tls", "passthrough", "behind-lb", "web");
    ListenerConfig web = config.listeners().get(4);
    assertThat(web.http().routes().clusterFor("api.example.com", "/v1/x")).isEqualTo("app");
    assertThat(web.http().routes().clusterFor("api.example.com", "/v2/x")).isEqualTo("echo");
    assertThat(web.http().maxHeaderBytes()).isEqualTo(32 * 1024);
    assertThat(web.timeouts().requestHead()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.listeners().get(0).http()).isNull(); // tcp, the default
    ListenerConfig plain = config.listeners().get(0);
    assertThat(plain.maxConnections()).isEqualTo(10000);
    assertThat(plain.timeouts().idle()).isEqualTo(Duration.ofMinutes(30));
    assertThat(plain.timeouts().connect()).isEqualTo(Duration.ofSeconds(5));
    assertThat(plain.reads()).isEqualTo(new ReadSizes(16 * 1024, 16 * 1024));
    ListenerConfig tls = config.listeners().get(1);
    assertThat(tls.tls()).isInstanceOf(ListenerTls.Terminate.class);
    ListenerTls.Terminate terminate = (ListenerTls.Terminate) tls.tls();
    assertThat(terminate.certificates()).hasSize(2);
    assertThat(terminate.alpn()).containsExactly("h2", "http/1.1");
    assertThat(terminate.clientAuth()).isEqualTo(ListenerTls.ClientAuthMode.OPTIONAL);
    assertThat(terminate.sessionCache()).isEqualTo(ListenerTls.SessionCache.DEFAULT);
    assertThat(((Route.BySni) tls.route()).clusterFor("a.example.com")).isEqualTo("echo");
    assertThat(config.listeners().get(2).tls()).isEqualTo(new ListenerTls.Passthrough(16 * 1024));
    assertThat(config.listeners().get(2).address())
        .isEqualTo(new Endpoint.Unix(Path.of("/tmp/sluice-passthrough.sock")));
    assertThat(plain.limits())
        .isEqualTo(
            new Limits(
                500,
                1000,
                100,
                List.of(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128")),
                List.of(Cidr.parse("127.0.0.2/32")),
                false));
    assertThat(tls.limits().requireSni()).isTrue();
    assertThat(tls.limits().ja3Blocklist()).containsExactly("e7d705a3286e19ea42f587b344ee6865");
    assertThat(tls.limits().ja4Blocklist()).containsExactly("t13d1516h2_8daaf6152771_e5627efa2ab1");

    ClusterConfig echo = config.clusters().getFirst();
    assertThat(echo.upstreams()).hasSize(2);
    assertThat(echo.balance()).isEqualTo(ClusterConfig.Balance.ROUNDROBIN);
    assertThat(echo.healthCheck())
        .isEqualTo(
            new ClusterConfig.HealthCheck(
                ClusterConfig.CheckType.SEND,
                Duration.ofSeconds(2),
                Duration.ofSeconds(1),
                2,
                3,
                "PING\r\n",
                "+PONG"));
    assertThat(echo.passive())
        .isEqualTo(
            new ClusterConfig.PassiveHealth(3, Duration.ofSeconds(5), Duration.ofMinutes(1)));
    assertThat(echo.retries()).isEqualTo(new ClusterConfig.Retries(3, Duration.ofSeconds(5)));
    assertThat(echo.slowStart()).isEqualTo(Duration.ofSeconds(30));
    assertThat(echo.resolveInterval()).isEqualTo(Duration.ofSeconds(30));
    ClusterConfig secure = config.clusters().get(1);
    assertThat(secure.tls().serverName()).isEqualTo("app.internal");
    assertThat(secure.tls().alpn()).containsExactly("http/1.1");
    assertThat(secure.tls().certificate()).isNotNull();
    assertThat(secure.tls().ca()).isEqualTo(dir.resolve("server-ca.pem"));
    assertThat(secure.tls().handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(secure.tls().sessionCacheSize()).isEqualTo(TlsClient.DEFAULT_SESSION_CACHE_SIZE);
    assertThat(secure.healthCheck().type()).isEqualTo(ClusterConfig.CheckType.TLS);

    assertThat(config.admin().address()).isEqualTo(Endpoint.parse("127.0.0.1:9000"));
    assertThat(config.accessLog()).isEqualTo(new AccessLogTarget.File(dir.resolve("access.log")));
    ListenerProxyProtocol behind = config.listeners().get(3).proxyProtocol();
    assertThat(behind.trustedSources()).hasSize(2);
    assertThat(behind.versions()).hasSize(2);
    assertThat(behind.timeout()).isEqualTo(ListenerProxyProtocol.DEFAULT_TIMEOUT);
    assertThat(behind.maxHeaderBytes()).isEqualTo(ListenerProxyProtocol.DEFAULT_MAX_HEADER_BYTES);
    assertThat(behind.optional()).isFalse();
    assertThat(config.listeners().get(0).proxyProtocol()).isNull();
    assertThat(config.clusters().get(2).proxyProtocol())
        .isEqualTo(dev.sluice.proxy.proxyprotocol.ProxyHeader.Version.V2);
    assertThat(config.clusters().getFirst().proxyProtocol()).isNull();
    assertThat(config.clusters().get(2).fingerprintTlvs())
        .isEqualTo(new dev.sluice.proxy.proxyprotocol.FingerprintTlvs(0xE0, 0xE1));
    assertThat(config.maxBytesInFlight()).isEqualTo(256L << 20);
    assertThat(config.drainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.transport()).isEqualTo(dev.sluice.net.Transport.AUTO);
  }
}
