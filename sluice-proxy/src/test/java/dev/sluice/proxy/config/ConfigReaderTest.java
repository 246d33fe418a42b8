package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.proxy.config.ClusterConfig.UpstreamConfig;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reading a YAML configuration: the defaults, overrides, TLS, and every kind of mistake, each
 * reported with file, line and field path in one {@link ConfigException}.
 */
class ConfigReaderTest {
  private static final String FILE = "sluice.yaml";

  private static final String MINIMAL =
      """
      listeners:
        - name: front
          address: 127.0.0.1:7000
          cluster: echo
      clusters:
        - name: echo
          upstreams:
            - address: 127.0.0.1:7001
      """;

  @TempDir Path baseDir;

  // ---- a minimal configuration and its defaults ----

  @Test
  void aMinimalConfigurationHasItsDefaults() throws Exception {
    ProxyConfig config = read(MINIMAL);

    assertThat(config.source()).isEqualTo(FILE);
    assertThat(config.listeners()).hasSize(1);
    ListenerConfig listener = config.listeners().getFirst();
    assertThat(listener.name()).isEqualTo("front");
    assertThat(listener.address()).isEqualTo(new Endpoint.Tcp("127.0.0.1", 7000));
    assertThat(listener.route()).isEqualTo(new Route.ToCluster("echo"));
    assertThat(listener.tls()).isNull();
    assertThat(listener.maxConnections()).isZero();
    assertThat(listener.timeouts())
        .isEqualTo(
            new TimeoutSettings(
                Duration.ofSeconds(5),
                Duration.ofHours(1),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                Duration.ZERO,
                Duration.ofMinutes(1)));
    assertThat(listener.reads()).isEqualTo(new ReadSizes(64 * 1024, 64 * 1024));

    assertThat(config.clusters())
        .containsExactly(
            ClusterConfig.of(
                "echo", List.of(new UpstreamConfig(new Endpoint.Tcp("127.0.0.1", 7001), 1))));
    assertThat(config.cluster("echo")).contains(config.clusters().getFirst());
    assertThat(config.cluster("other")).isEmpty();
    assertThat(config.drainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.maxBytesInFlight()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
  }

  @Test
  void listenersAndClustersKeepTheirOrderAndUpstreamsTheirWeights() throws Exception {
    ProxyConfig config =
        read(
            """
            listeners:
              - {name: b, address: "127.0.0.1:7002", cluster: two}
              - {name: a, address: "[::1]:7001", cluster: one, maxConnections: 100}
              - {name: c, address: "unix:/run/sluice/front.sock", cluster: one, maxConnections: none}
            clusters:
              - name: two
                upstreams:
                  - {address: "10.0.0.2:80", weight: 3}
                  - {address: "10.0.0.1:80"}
                  - {address: "unix:/run/app.sock", weight: 1000}
              - name: one
                upstreams: [{address: "localhost:9000"}]
            """);
    assertThat(config.listeners())
        .extracting(ListenerConfig::name, ListenerConfig::address, ListenerConfig::maxConnections)
        .containsExactly(
            tuple("b", new Endpoint.Tcp("127.0.0.1", 7002), 0),
            tuple("a", new Endpoint.Tcp("::1", 7001), 100),
            tuple("c", new Endpoint.Unix(Path.of("/run/sluice/front.sock")), 0));
    assertThat(config.clusters()).extracting(ClusterConfig::name).containsExactly("two", "one");
    assertThat(config.cluster("two").orElseThrow().upstreams())
        .containsExactly(
            new UpstreamConfig(new Endpoint.Tcp("10.0.0.2", 80), 3),
            new UpstreamConfig(new Endpoint.Tcp("10.0.0.1", 80), 1),
            new UpstreamConfig(new Endpoint.Unix(Path.of("/run/app.sock")), 1000));
  }

  // ---- overrides ----

  @Test
  void globalTimeoutsApplyToEveryListener() throws Exception {
    ProxyConfig config =
        read(
            MINIMAL
                + """
                timeouts:
                  connect: 250ms
                  idle: 10m
                  handshake: 3s
                  halfClose: none
                  maxConnectionDuration: 2d
                  writeStall: 20s
                  drain: 1h
                """);
    assertThat(config.listeners().getFirst().timeouts())
        .isEqualTo(
            new TimeoutSettings(
                Duration.ofMillis(250),
                Duration.ofMinutes(10),
                Duration.ofSeconds(3),
                Duration.ZERO,
                Duration.ofDays(2),
                Duration.ofSeconds(20)));
    assertThat(config.drainTimeout()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void listenerTimeoutsOverrideTheGlobalOnesOneByOne() throws Exception {
    ProxyConfig config =
        read(
            """
            timeouts:
              connect: 2s
              idle: 10m
            listeners:
              - name: tuned
                address: 127.0.0.1:7000
                cluster: echo
                timeouts:
                  idle: 30s
                  maxConnectionDuration: 1h
              - name: plain
                address: 127.0.0.1:7001
                cluster: echo
            clusters:
              - name: echo
                upstreams: [{address: "127.0.0.1:7002"}]
            """);
    assertThat(config.listeners().get(0).timeouts())
        .isEqualTo(
            new TimeoutSettings(
                Duration.ofSeconds(2),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                Duration.ofHours(1),
                Duration.ofMinutes(1)));
    assertThat(config.listeners().get(1).timeouts())
        .isEqualTo(
            new TimeoutSettings(
                Duration.ofSeconds(2),
                Duration.ofMinutes(10),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                Duration.ZERO,
                Duration.ofMinutes(1)));
  }

  @Test
  void drainIsGlobalOnly() throws Exception {
    String yaml =
        MINIMAL.replace(
            "    cluster: echo\n", "    cluster: echo\n    timeouts:\n      drain: 5s\n");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].timeouts.drain");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "drain: 5s"));
    assertThat(problem.message()).contains("unknown field");
  }

  @Test
  void globalBuffersSetBothDirectionsAndEachDirectionOverrides() throws Exception {
    assertThat(readsOf("buffers: {readBufferSize: 16KiB}"))
        .isEqualTo(new ReadSizes(16 * 1024, 16 * 1024));
    assertThat(readsOf("buffers: {readBufferSize: 16KiB, clientReadBufferSize: 8KiB}"))
        .isEqualTo(new ReadSizes(8 * 1024, 16 * 1024));
    assertThat(readsOf("buffers: {upstreamReadBufferSize: 1MiB}"))
        .isEqualTo(new ReadSizes(64 * 1024, 1024 * 1024));
    assertThat(readsOf("buffers: {clientReadBufferSize: 1, upstreamReadBufferSize: 4096}"))
        .isEqualTo(new ReadSizes(1, 4096));
  }

  private ReadSizes readsOf(String buffers) throws ConfigException {
    return read(MINIMAL + buffers + "\n").listeners().getFirst().reads();
  }

  @Test
  void listenerBuffersOverrideTheGlobalOnes() throws Exception {
    ProxyConfig config =
        read(
            """
            buffers:
              readBufferSize: 16KiB
              clientReadBufferSize: 8KiB
              maxBytesInFlight: 256MiB
            listeners:
              - name: both
                address: 127.0.0.1:7000
                cluster: echo
                buffers: {readBufferSize: 32KiB}
              - name: upstream-only
                address: 127.0.0.1:7001
                cluster: echo
                buffers: {upstreamReadBufferSize: 128KiB}
              - name: inherits
                address: 127.0.0.1:7002
                cluster: echo
            clusters:
              - name: echo
                upstreams: [{address: "127.0.0.1:7003"}]
            """);
    assertThat(config.listeners())
        .extracting(ListenerConfig::reads)
        .containsExactly(
            new ReadSizes(32 * 1024, 32 * 1024),
            new ReadSizes(8 * 1024, 128 * 1024),
            new ReadSizes(8 * 1024, 16 * 1024));
    assertThat(config.maxBytesInFlight()).isEqualTo(256L << 20);
  }

  @Test
  void maxBytesInFlightMayBeAsSmallAs64KiB() throws Exception {
    assertThat(read(MINIMAL + "buffers: {maxBytesInFlight: 64KiB}\n").maxBytesInFlight())
        .isEqualTo(64 * 1024);
    assertThat(read(MINIMAL + "buffers: {maxBytesInFlight: 8GiB}\n").maxBytesInFlight())
        .isEqualTo(8L << 30);
  }

  // ---- TLS ----

  @Test
  void pemCertificatesTerminateTls() throws Exception {
    TestPki pki = TestPki.get();
    ProxyConfig config =
        read(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}]}", pki.serverCert, pki.serverKey));
    assertThat(config.listeners().getFirst().tls())
        .isEqualTo(
            new ListenerTls.Terminate(
                List.of(new ListenerTls.Pem(pki.serverCert, pki.serverKey, null)),
                List.of(),
                ListenerTls.ClientAuthMode.NONE,
                null,
                List.of("TLSv1.3", "TLSv1.2")));
  }

  @Test
  void anEncryptedPemKeyTakesItsPassword() throws Exception {
    TestPki pki = TestPki.get();
    ProxyConfig config =
        read(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\", password: \"%s\"}]}",
                pki.serverCert, pki.serverKeyEncrypted, new String(TestPki.PASSWORD)));
    ListenerTls.Terminate tls = (ListenerTls.Terminate) config.listeners().getFirst().tls();
    assertThat(tls.certificates())
        .containsExactly(
            new ListenerTls.Pem(
                pki.serverCert, pki.serverKeyEncrypted, new String(TestPki.PASSWORD)));
  }

  @Test
  void pkcs12CertificatesWithAlpnProtocolsAndClientAuth() throws Exception {
    TestPki pki = TestPki.get();
    ProxyConfig config =
        read(
            withTls(
                """
                {certificates: [{p12: "%s", password: "%s"}, {cert: "%s", key: "%s"}],
                       alpn: [h2, http/1.1], protocols: [TLSv1.3], clientAuth: required,
                       clientCa: "%s"}""",
                pki.serverP12,
                new String(TestPki.PASSWORD),
                pki.otherCert,
                pki.otherKey,
                pki.caCert));
    assertThat(config.listeners().getFirst().tls())
        .isEqualTo(
            new ListenerTls.Terminate(
                List.of(
                    new ListenerTls.Pkcs12(pki.serverP12, new String(TestPki.PASSWORD)),
                    new ListenerTls.Pem(pki.otherCert, pki.otherKey, null)),
                List.of("h2", "http/1.1"),
                ListenerTls.ClientAuthMode.REQUIRED,
                pki.caCert,
                List.of("TLSv1.3")));
  }

  @Test
  void aTicketKeyFileMustHoldKeysOfOneSize(@TempDir Path keys) throws Exception {
    TestPki pki = TestPki.get();
    Path file = keys.resolve("ticket-keys");
    java.nio.file.Files.writeString(
        file,
        java.util.Base64.getEncoder().encodeToString(new byte[48])
            + "\n"
            + java.util.Base64.getEncoder().encodeToString(new byte[80])
            + "\n");
    String yaml =
        withTls(
            "{certificates: [{cert: \"%s\", key: \"%s\"}], sessionTickets: {keyFile: \"%s\"}}",
            pki.serverCert, pki.serverKey, file);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].tls.sessionTickets.keyFile");
    assertThat(problem.message()).contains(file + ":2: keys of 48 and 80 bytes mixed");

    java.nio.file.Files.writeString(
        file, java.util.Base64.getEncoder().encodeToString(new byte[80]) + "\n");
    Problem jdk =
        onlyProblem(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}], sessionTickets: {keyFile: \"%s\"},"
                    + " engine: jdk}",
                pki.serverCert, pki.serverKey, file));
    assertThat(jdk.message()).contains("sessionTickets.keyFile needs the OpenSSL engine");
  }

  @Test
  void clientAuthRequiredWithoutClientCaIsAProblem() {
    TestPki pki = TestPki.get();
    String yaml =
        withTls(
            "{certificates: [{cert: \"%s\", key: \"%s\"}], clientAuth: required}",
            pki.serverCert, pki.serverKey);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].tls");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "tls:"));
    assertThat(problem.message()).contains("clientAuth required needs clientCa");
  }

  @Test
  void aSessionCacheTakesASizeAndATimeoutAndDefaultsToTheJdks() throws Exception {
    TestPki pki = TestPki.get();
    String certificates = "certificates: [{cert: \"%s\", key: \"%s\"}]";
    ListenerTls.Terminate set =
        (ListenerTls.Terminate)
            read(withTls(
                    "{" + certificates + ", sessionCache: {size: 500, timeout: 2h}}",
                    pki.serverCert,
                    pki.serverKey))
                .listeners()
                .getFirst()
                .tls();
    assertThat(set.sessionCache())
        .isEqualTo(new ListenerTls.SessionCache(500, java.time.Duration.ofHours(2)));
    ListenerTls.Terminate unset =
        (ListenerTls.Terminate)
            read(withTls("{" + certificates + "}", pki.serverCert, pki.serverKey))
                .listeners()
                .getFirst()
                .tls();
    assertThat(unset.sessionCache())
        .isEqualTo(new ListenerTls.SessionCache(20_480, java.time.Duration.ofDays(1)));
  }

  @Test
  void aSessionTimeoutBeyondATicketsLifetimeOrBelowASecondIsAProblem() {
    TestPki pki = TestPki.get();
    for (String timeout : List.of("8d", "500ms", "none")) {
      Problem problem =
          onlyProblem(
              withTls(
                  "{certificates: [{cert: \"%s\", key: \"%s\"}], sessionCache: {timeout: %s}}",
                  pki.serverCert, pki.serverKey, timeout));
      assertThat(problem.path()).as(timeout).isEqualTo("listeners[0].tls.sessionCache.timeout");
      assertThat(problem.message()).as(timeout).contains("whole seconds from 1s to 7d");
    }
    Problem size =
        onlyProblem(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}], sessionCache: {size: 0}}",
                pki.serverCert, pki.serverKey));
    assertThat(size.path()).isEqualTo("listeners[0].tls.sessionCache.size");
  }

  @Test
  void anUnknownClientAuthModeListsTheModes() {
    TestPki pki = TestPki.get();
    Problem problem =
        onlyProblem(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}], clientAuth: sometimes}",
                pki.serverCert, pki.serverKey));
    assertThat(problem.path()).isEqualTo("listeners[0].tls.clientAuth");
    assertThat(problem.message()).contains("'sometimes'", "none", "optional", "required");
  }

  @Test
  void anUnknownProtocolIsAProblem() {
    TestPki pki = TestPki.get();
    Problem problem =
        onlyProblem(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}], protocols: [TLSv1.3, TLSv1.1]}",
                pki.serverCert, pki.serverKey));
    assertThat(problem.path()).isEqualTo("listeners[0].tls.protocols[1]");
    assertThat(problem.message()).contains("'TLSv1.1' is not a protocol");
  }

  @Test
  void terminatingTlsNeedsCertificates() {
    String yaml = withTls("{alpn: [h2]}");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].tls");
    assertThat(problem.message()).contains("missing field 'certificates'");
    assertThat(onlyProblem(withTls("{certificates: []}")).message())
        .contains("at least one certificate");
  }

  @Test
  void passthroughReadsTheClientHelloWithinALimit() throws Exception {
    assertThat(read(withTls("{passthrough: true}")).listeners().getFirst().tls())
        .isEqualTo(new ListenerTls.Passthrough(16 * 1024));
    assertThat(
            read(withTls("{passthrough: true, maxClientHelloBytes: 4KiB}"))
                .listeners()
                .getFirst()
                .tls())
        .isEqualTo(new ListenerTls.Passthrough(4096));
    Problem tooSmall = onlyProblem(withTls("{passthrough: true, maxClientHelloBytes: 100}"));
    assertThat(tooSmall.path()).isEqualTo("listeners[0].tls.maxClientHelloBytes");
    assertThat(tooSmall.message()).contains("out of range");
  }

  @Test
  void passthroughWithCertificatesIsAProblem() {
    TestPki pki = TestPki.get();
    String yaml =
        withTls(
            "{passthrough: true, certificates: [{cert: \"%s\", key: \"%s\"}], alpn: [h2]}",
            pki.serverCert, pki.serverKey);
    List<Problem> problems = problems(yaml);
    assertThat(problems)
        .extracting(Problem::path)
        .containsExactly("listeners[0].tls.certificates", "listeners[0].tls.alpn");
    assertThat(problems)
        .allSatisfy(
            p -> assertThat(p.message()).contains("passthrough listener does not terminate"));
  }

  @Test
  void maxClientHelloBytesIsOnlyForPassthrough() {
    TestPki pki = TestPki.get();
    Problem problem =
        onlyProblem(
            withTls(
                "{certificates: [{cert: \"%s\", key: \"%s\"}], maxClientHelloBytes: 4KiB}",
                pki.serverCert, pki.serverKey));
    assertThat(problem.path()).isEqualTo("listeners[0].tls.maxClientHelloBytes");
    assertThat(problem.message()).contains("only for passthrough");
  }

  @Test
  void sniRoutesOnAPassthroughListener() throws Exception {
    ProxyConfig config =
        read(
            """
            listeners:
              - name: front
                address: 127.0.0.1:7443
                tls: {passthrough: true}
                sni:
                  - match: "*.Example.com"
                    cluster: wild
                  - {match: api.test, cluster: api}
                  - default: api
            clusters:
              - {name: wild, upstreams: [{address: "127.0.0.1:8001"}]}
              - {name: api, upstreams: [{address: "127.0.0.1:8002"}]}
            """);
    Route.BySni route = (Route.BySni) config.listeners().getFirst().route();
    assertThat(route.rules())
        .containsExactly(
            new Route.SniRule("*.example.com", "wild"), new Route.SniRule("api.test", "api"));
    assertThat(route.defaultCluster()).isEqualTo("api");
    assertThat(route.clusterFor("x.example.com")).isEqualTo("wild");
    assertThat(route.clusterFor(null)).isEqualTo("api");
  }

  @Test
  void sniRoutesNeedTls() {
    String yaml =
        MINIMAL.replace(
            "    cluster: echo\n", "    sni:\n      - {match: a.test, cluster: echo}\n");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].sni");
    assertThat(problem.message()).contains("needs tls");
  }

  @Test
  void badSniRulesAreEachAProblem() {
    String yaml =
        """
        listeners:
          - name: front
            address: 127.0.0.1:7443
            tls: {passthrough: true}
            sni:
              - {match: "a.*.example.com", cluster: echo}
              - {match: "good.example.com", cluster: nope}
              - {match: "*.*.example.com", cluster: echo}
              - {cluster: echo}
              - default: echo
              - default: echo
        clusters:
          - {name: echo, upstreams: [{address: "127.0.0.1:8001"}]}
        """;
    assertThat(problems(yaml))
        .extracting(Problem::line, Problem::path)
        .containsExactly(
            tuple(6, "listeners[0].sni[0].match"),
            tuple(7, "listeners[0].sni[1].cluster"),
            tuple(8, "listeners[0].sni[2].match"),
            tuple(9, "listeners[0].sni[3]"),
            tuple(11, "listeners[0].sni[5]"));
  }

  @Test
  void badHttpSettingsAreReportedWithTheirLines() {
    String yaml =
        MINIMAL.replace(
            "    cluster: echo\n",
            """
                cluster: echo
                protocol: http
                http:
                  routes:
                    - {host: "api.example.com:80", cluster: echo}
                    - {pathPrefix: /v1/, cluster: nowhere}
                  forwardedFor: sometimes
                  requestHeaders: {set: {"Bad Name": x}}
                  responseHeaders: {set: {X-A: "${nothing}"}}
                  maxHeaderBytes: 10B
                  upstreamPool:
                    maxIdlePerUpstream: -1
                    idle: 0s
            """);
    assertThat(problems(yaml))
        .extracting(Problem::line, Problem::path)
        .containsExactly(
            tuple(8, "listeners[0].http.routes[0]"),
            tuple(9, "listeners[0].http.routes[1].cluster"),
            tuple(10, "listeners[0].http.forwardedFor"),
            tuple(11, "listeners[0].http.requestHeaders"),
            tuple(12, "listeners[0].http.responseHeaders"),
            tuple(13, "listeners[0].http.maxHeaderBytes"),
            tuple(15, "listeners[0].http.upstreamPool.maxIdlePerUpstream"),
            tuple(16, "listeners[0].http.upstreamPool.idle"));
  }

  @Test
  void anHttpListenersUpstreamPoolHasDefaultsAndMayBeTurnedOff() throws Exception {
    String http = "    cluster: echo\n    protocol: http\n";
    ListenerConfig defaults =
        read(MINIMAL.replace("    cluster: echo\n", http)).listeners().getFirst();
    assertThat(defaults.http().upstreamPool())
        .isEqualTo(new ListenerHttp.UpstreamPool(64, java.time.Duration.ofSeconds(30)));
    ListenerConfig off =
        read(MINIMAL.replace(
                "    cluster: echo\n",
                http + "    http: {upstreamPool: {maxIdlePerUpstream: 0, idle: 5s}}\n"))
            .listeners()
            .getFirst();
    assertThat(off.http().upstreamPool().enabled()).isFalse();
    assertThat(off.http().upstreamPool().idle()).isEqualTo(java.time.Duration.ofSeconds(5));
    Problem unknown =
        onlyProblem(
            MINIMAL.replace(
                "    cluster: echo\n", http + "    http: {upstreamPool: {maxIdle: 3}}\n"));
    assertThat(unknown.path()).isEqualTo("listeners[0].http.upstreamPool.maxIdle");
  }

  @Test
  void httpSettingsNeedAnHttpListener() {
    Problem tcp =
        onlyProblem(MINIMAL.replace("    cluster: echo\n", "    cluster: echo\n    http: {}\n"));
    assertThat(tcp.path()).isEqualTo("listeners[0].http");
    assertThat(tcp.message()).contains("protocol: http");
    Problem unknown =
        onlyProblem(
            MINIMAL.replace("    cluster: echo\n", "    cluster: echo\n    protocol: h2\n"));
    assertThat(unknown.message()).contains("'h2' is not a protocol");
  }

  @Test
  void anHttpListenerReadsItsSettingsAndTimeouts() throws Exception {
    ProxyConfig config =
        read(
            MINIMAL.replace(
                "    cluster: echo\n",
                "    cluster: echo\n    protocol: http\n    timeouts: {requestHead: 2s}\n"));
    ListenerConfig listener = config.listeners().getFirst();
    assertThat(listener.http().routes().defaultCluster()).isEqualTo("echo");
    assertThat(listener.http().rewrite()).isEqualTo(dev.sluice.proxy.http.HeaderRewrite.DEFAULT);
    assertThat(listener.timeouts().requestHead()).isEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(listener.timeouts().keepAlive()).isEqualTo(java.time.Duration.ofSeconds(60));
  }

  @Test
  void aListenerNeedsExactlyOneRoute() {
    String both =
        MINIMAL.replace(
            "    cluster: echo\n",
            "    cluster: echo\n    tls: {passthrough: true}\n    sni: [{default: echo}]\n");
    assertThat(onlyProblem(both).message()).contains("both cluster and sni");
    String neither = MINIMAL.replace("    cluster: echo\n", "");
    Problem problem = onlyProblem(neither);
    assertThat(problem.path()).isEqualTo("listeners[0]");
    assertThat(problem.line()).isEqualTo(lineOf(neither, "- name: front"));
    assertThat(problem.message()).contains("needs a route");
  }

  // ---- certificate files ----

  @Test
  void aMissingCertificateFileNamesTheResolvedPath() {
    TestPki pki = TestPki.get();
    String yaml =
        withTls("{certificates: [{cert: \"certs/missing.pem\", key: \"%s\"}]}", pki.serverKey);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].tls.certificates[0].cert");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "certs/missing.pem"));
    assertThat(problem.message())
        .contains(baseDir.resolve("certs/missing.pem").toString())
        .contains("no such file");
  }

  @Test
  void aCertificatePathThatCannotBeReadAsAFileNamesThePath() throws IOException {
    // A directory where the certificate should be (the tests run as any user, even root, for
    // whom no permission bit makes a file unreadable).
    Path dir = Files.createDirectories(baseDir.resolve("not-a-file.pem"));
    TestPki pki = TestPki.get();
    Problem problem =
        onlyProblem(
            withTls("{certificates: [{cert: not-a-file.pem, key: \"%s\"}]}", pki.serverKey));
    assertThat(problem.path()).startsWith("listeners[0].tls.certificates[0]");
    assertThat(problem.message()).contains(dir.toString());
  }

  @Test
  void aKeyThatDoesNotMatchTheCertificateIsAProblem() {
    TestPki pki = TestPki.get();
    String yaml =
        withTls("{certificates: [{cert: \"%s\", key: \"%s\"}]}", pki.serverCert, pki.otherKey);
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].tls.certificates[0]");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "certificates:"));
    assertThat(problem.message())
        .contains("does not match")
        .contains(pki.otherKey.toString())
        .contains(pki.serverCert.toString());
  }

  @Test
  void aWrongPkcs12PasswordIsAProblem() {
    TestPki pki = TestPki.get();
    Problem problem =
        onlyProblem(withTls("{certificates: [{p12: \"%s\", password: wrong}]}", pki.serverP12));
    assertThat(problem.path()).isEqualTo("listeners[0].tls.certificates[0]");
    assertThat(problem.message()).contains("wrong password").contains(pki.serverP12.toString());
  }

  @Test
  void aPkcs12FileNeedsItsPasswordAndNoPemFiles() {
    TestPki pki = TestPki.get();
    assertThat(onlyProblem(withTls("{certificates: [{p12: \"%s\"}]}", pki.serverP12)).message())
        .contains("needs its password");
    assertThat(
            onlyProblem(
                    withTls(
                        "{certificates: [{p12: \"%s\", password: x, cert: \"%s\"}]}",
                        pki.serverP12, pki.serverCert))
                .message())
        .contains("not both");
  }

  @Test
  void relativeFilePathsResolveAgainstTheBaseDirectory() throws Exception {
    TestPki pki = TestPki.get();
    Path certs = Files.createDirectories(baseDir.resolve("certs"));
    Files.copy(pki.serverCert, certs.resolve("server.pem"));
    Files.copy(pki.serverKey, certs.resolve("server.key"));
    Files.copy(pki.caCert, certs.resolve("ca.pem"));
    ProxyConfig config =
        read(
            withTls(
                "{certificates: [{cert: certs/server.pem, key: ./certs/../certs/server.key}],"
                    + " clientAuth: optional, clientCa: certs/ca.pem}"));
    ListenerTls.Terminate tls = (ListenerTls.Terminate) config.listeners().getFirst().tls();
    assertThat(tls.certificates())
        .containsExactly(
            new ListenerTls.Pem(certs.resolve("server.pem"), certs.resolve("server.key"), null));
    assertThat(tls.clientCa()).isEqualTo(certs.resolve("ca.pem"));
    assertThat(tls.clientAuth()).isEqualTo(ListenerTls.ClientAuthMode.OPTIONAL);
  }

  @Test
  void readingAFileResolvesAgainstItsDirectoryAndNamesItInProblems() throws Exception {
    TestPki pki = TestPki.get();
    Path conf = Files.createDirectories(baseDir.resolve("conf"));
    Files.copy(pki.serverCert, conf.resolve("server.pem"));
    Files.copy(pki.serverKey, conf.resolve("server.key"));
    Path file =
        Files.writeString(
            conf.resolve("sluice.yaml"),
            withTls("{certificates: [{cert: server.pem, key: server.key}]}"));
    ProxyConfig config = ConfigReader.read(file);
    assertThat(config.source()).isEqualTo(file.toString());
    assertThat(((ListenerTls.Terminate) config.listeners().getFirst().tls()).certificates())
        .containsExactly(
            new ListenerTls.Pem(conf.resolve("server.pem"), conf.resolve("server.key"), null));

    Path bad = Files.writeString(conf.resolve("bad.yaml"), MINIMAL + "extra: 1\n");
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigReader.read(bad));
    assertThat(e.problems())
        .containsExactly(
            new Problem(
                bad.toString(),
                9,
                "extra",
                "unknown field (known here: accessLog, admin, buffers, clusters, listeners, splice, timeouts, transport)"));

    Path missing = conf.resolve("missing.yaml");
    ConfigException none =
        catchThrowableOfType(ConfigException.class, () -> ConfigReader.read(missing));
    assertThat(none.problems()).hasSize(1);
    assertThat(none.problems().getFirst().file()).isEqualTo(missing.toString());
    assertThat(none.problems().getFirst().message()).contains("cannot read the file");
  }

  // ---- every error names file, line and field path ----

  @Test
  void malformedYamlNamesTheLineOfTheSyntaxError() {
    String yaml =
        """
        listeners:
          - name: front
            address: 127.0.0.1:7000
           cluster: echo
        clusters: []
        """;
    Problem problem = onlyProblem(yaml);
    assertThat(problem.file()).isEqualTo(FILE);
    assertThat(problem.line()).isEqualTo(4);
    assertThat(problem.path()).isEmpty();
    assertThat(problem.message()).startsWith("not valid YAML");
  }

  @Test
  void aTabIndentNamesItsLine() {
    Problem problem = onlyProblem("listeners:\n  - name: front\n\taddress: x\n");
    assertThat(problem.line()).isEqualTo(3);
    assertThat(problem.message()).startsWith("not valid YAML").contains("TAB");
  }

  @Test
  void aListenerHostThatDoesNotResolveNamesItsField() {
    // Names under .invalid never resolve (RFC 6761).
    String yaml = MINIMAL.replace("address: 127.0.0.1:7000", "address: nowhere.invalid:7000");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].address");
    assertThat(problem.line()).isEqualTo(lineOf(yaml, "nowhere.invalid"));
    assertThat(problem.message()).contains("'nowhere.invalid' does not resolve");

    Problem admin = onlyProblem(MINIMAL + "admin: {address: \"nowhere.invalid:9000\"}\n");
    assertThat(admin.path()).isEqualTo("admin.address");
    assertThat(admin.message()).contains("does not resolve");
  }

  @Test
  void anUnknownTopLevelFieldListsTheKnownOnes() {
    String yaml = MINIMAL + "listners: []\n";
    Problem problem = onlyProblem(yaml);
    assertThat(problem)
        .isEqualTo(
            new Problem(
                FILE,
                lineOf(yaml, "listners"),
                "listners",
                "unknown field (known here: accessLog, admin, buffers, clusters, listeners, splice, timeouts, transport)"));
  }

  @Test
  void anUnknownNestedFieldNamesItsPath() {
    TestPki pki = TestPki.get();
    String yaml =
        withTls(
            "{certficates: [{cert: \"%s\", key: \"%s\"}], alpn: [h2]}",
            pki.serverCert, pki.serverKey);
    List<Problem> problems = problems(yaml);
    assertThat(problems)
        .extracting(Problem::line, Problem::path)
        .containsExactly(
            tuple(lineOf(yaml, "certficates"), "listeners[0].tls.certficates"),
            tuple(lineOf(yaml, "tls:"), "listeners[0].tls"));
    assertThat(problems.get(0).message()).contains("unknown field", "certificates", "passthrough");
    assertThat(problems.get(1).message()).contains("missing field 'certificates'");
  }

  @Test
  void anUnknownFieldWithABlockValueIsReportedOnTheLineOfItsName() {
    TestPki pki = TestPki.get();
    String yaml =
        MINIMAL.replace(
            "    cluster: echo\n",
            """
                cluster: echo
                tls:
                  certficates:
                    - cert: "%s"
                      key: "%s"
            """
                .formatted(pki.serverCert, pki.serverKey));
    Problem unknown =
        problems(yaml).stream()
            .filter(p -> p.message().startsWith("unknown field"))
            .findFirst()
            .orElseThrow();
    assertThat(unknown.path()).isEqualTo("listeners[0].tls.certficates");
    assertThat(unknown.line())
        .as("the line of 'certficates:'")
        .isEqualTo(lineOf(yaml, "certficates:"));
  }

  @Test
  void aDuplicateKeyWithABlockValueIsReportedOnTheLineOfItsName() {
    String yaml =
        MINIMAL + "clusters:\n  - name: other\n    upstreams: [{address: \"127.0.0.1:1\"}]\n";
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("clusters");
    assertThat(problem.message()).contains("appears twice");
    assertThat(problem.line()).as("the line of the second 'clusters:'").isEqualTo(9);
  }

  @Test
  void aMissingRequiredFieldIsReportedOnItsParent() {
    String yaml =
        """
        listeners:
          - name: front
            cluster: echo
        clusters:
          - name: echo
        """;
    assertThat(problems(yaml))
        .extracting(Problem::line, Problem::path, Problem::message)
        .containsExactlyInAnyOrder(
            tuple(2, "listeners[0]", "missing field 'address'"),
            tuple(5, "clusters[0]", "missing field 'upstreams'"));
    assertThat(problems("clusters: [{name: echo, upstreams: [{address: \"127.0.0.1:1\"}]}]\n"))
        .extracting(Problem::line, Problem::path, Problem::message)
        .containsExactly(tuple(1, "", "missing field 'listeners'"));
  }

  @Test
  void theOperatorSurfaceIsOffByDefaultAndReadWhenGiven() throws Exception {
    ProxyConfig none = read(MINIMAL);
    assertThat(none.admin()).isNull();
    assertThat(none.accessLog()).isNull();
    ProxyConfig on = read(MINIMAL + "admin: {address: \"[::1]:9000\"}\naccessLog: stdout\n");
    assertThat(on.admin().address()).isEqualTo(new Endpoint.Tcp("::1", 9000));
    assertThat(on.accessLog()).isEqualTo(new AccessLogTarget.Stdout());
  }

  @Test
  void aBadAdminListenerIsAProblemOnItsLine() {
    assertThat(onlyProblem(MINIMAL + "admin: {address: unix:/run/admin.sock}\n").message())
        .contains("the admin listener needs a TCP address");
    assertThat(onlyProblem(MINIMAL + "admin: {}\n").message()).contains("missing field 'address'");
    assertThat(onlyProblem(MINIMAL + "admin: {address: 127.0.0.1:7000}\n").message())
        .contains("overlaps listener 'front' on 127.0.0.1:7000 (line 3): both are 127.0.0.1:7000");
    assertThat(onlyProblem(MINIMAL + "admin: {address: 127.0.0.1:9000, tls: on}\n").message())
        .contains("unknown field");
  }

  @Test
  void aListWhereAValueIsExpectedIsAProblem() {
    String yaml = MINIMAL.replace("address: 127.0.0.1:7000", "address: [127.0.0.1, 7000]");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].address");
    assertThat(problem.line()).isEqualTo(3);
    assertThat(problem.message()).contains("expected a single value, found a list");
  }

  @Test
  void aMappingWhereAListIsExpectedIsAProblem() {
    String yaml =
        """
        listeners:
          front: {address: "127.0.0.1:7000", cluster: echo}
        clusters:
          - {name: echo, upstreams: [{address: "127.0.0.1:7001"}]}
        """;
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners");
    assertThat(problem.message()).contains("expected a list, found a mapping");
  }

  @Test
  void aDuplicateKeyIsAProblem() {
    String yaml = MINIMAL.replace("    cluster: echo\n", "    cluster: echo\n    cluster: other\n");
    Problem problem = onlyProblem(yaml);
    assertThat(problem)
        .isEqualTo(
            new Problem(
                FILE, lineOf(yaml, "cluster: other"), "listeners[0].cluster", "appears twice"));
  }

  @Test
  void duplicateNamesAndAddressesAreProblems() {
    String yaml =
        """
        listeners:
          - {name: front, address: "127.0.0.1:7000", cluster: echo}
          - {name: front, address: "127.0.0.1:7001", cluster: echo}
          - {name: back, address: "127.0.0.1:7000", cluster: echo}
          - {name: any1, address: "127.0.0.1:0", cluster: echo}
          - {name: any2, address: "127.0.0.1:0", cluster: echo}
        clusters:
          - {name: echo, upstreams: [{address: "127.0.0.1:8000"}]}
          - {name: echo, upstreams: [{address: "127.0.0.1:8001"}]}
        """;
    assertThat(problems(yaml))
        .extracting(Problem::line, Problem::path, Problem::message)
        .containsExactlyInAnyOrder(
            tuple(3, "listeners[1]", "a second listener named 'front'"),
            tuple(
                4,
                "listeners[2].address",
                "listener 'back' on 127.0.0.1:7000 overlaps listener 'front' on 127.0.0.1:7000"
                    + " (line 2): both are 127.0.0.1:7000: give each its own address or port"),
            tuple(9, "clusters[1]", "a second cluster named 'echo'"));
  }

  @Test
  void anUnknownClusterReferenceListsTheClusters() {
    String yaml =
        MINIMAL.replace("cluster: echo", "cluster: ehco")
            + "  - {name: other, upstreams: [{address: \"127.0.0.1:7002\"}]}\n";
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].cluster");
    assertThat(problem.line()).isEqualTo(4);
    assertThat(problem.message()).contains("no cluster named 'ehco'", "echo", "other");
  }

  @Test
  void badDurationsSizesAndAddressesAreProblems() {
    String yaml =
        MINIMAL.replace("127.0.0.1:7001", "localhost")
            + """
            timeouts:
              idle: 5 sec
            buffers:
              readBufferSize: 64KB
            """;
    assertThat(problems(yaml))
        .extracting(Problem::line, Problem::path)
        .containsExactlyInAnyOrder(
            tuple(8, "clusters[0].upstreams[0].address"),
            tuple(10, "timeouts.idle"),
            tuple(12, "buffers.readBufferSize"));
    assertThat(problems(yaml))
        .extracting(Problem::message)
        .anySatisfy(m -> assertThat(m).contains("'localhost' is not an address"))
        .anySatisfy(m -> assertThat(m).contains("'5 sec' is not a duration"))
        .anySatisfy(m -> assertThat(m).contains("'64KB' is not a size"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0B", "2MiB", "1048577"})
  void aReadBufferSizeOutsideOneByteToOneMebibyteIsAProblem(String size) {
    for (String field :
        List.of("readBufferSize", "clientReadBufferSize", "upstreamReadBufferSize")) {
      Problem global = onlyProblem(MINIMAL + "buffers: {" + field + ": " + size + "}\n");
      assertThat(global.path()).isEqualTo("buffers." + field);
      assertThat(global.message()).contains("out of range 1B..1MiB");
      Problem listener =
          onlyProblem(
              MINIMAL.replace(
                  "    cluster: echo\n",
                  "    cluster: echo\n    buffers: {" + field + ": " + size + "}\n"));
      assertThat(listener.path()).isEqualTo("listeners[0].buffers." + field);
      assertThat(listener.message()).contains("out of range");
    }
  }

  @Test
  void otherOutOfRangeValuesAreProblems() {
    assertThat(onlyProblem(MINIMAL + "buffers: {maxBytesInFlight: 32KiB}\n"))
        .satisfies(p -> assertThat(p.path()).isEqualTo("buffers.maxBytesInFlight"))
        .satisfies(p -> assertThat(p.message()).contains("32KiB is out of range 64KiB"));
    for (String weight : List.of("0", "1001", "-1")) {
      Problem problem =
          onlyProblem(
              MINIMAL.replace(
                  "- address: 127.0.0.1:7001",
                  "- {address: \"127.0.0.1:7001\", weight: " + weight + "}"));
      assertThat(problem.path()).isEqualTo("clusters[0].upstreams[0].weight");
      assertThat(problem.message()).contains("out of range 1..1000");
    }
    Problem notANumber =
        onlyProblem(
            MINIMAL.replace(
                "- address: 127.0.0.1:7001", "- {address: \"127.0.0.1:7001\", weight: heavy}"));
    assertThat(notANumber.message()).contains("'heavy' is not a whole number");
    Problem maxConnections =
        onlyProblem(
            MINIMAL.replace("    cluster: echo\n", "    cluster: echo\n    maxConnections: 0\n"));
    assertThat(maxConnections.path()).isEqualTo("listeners[0].maxConnections");
    assertThat(maxConnections.message()).contains("out of range 1..");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"connect", "idle", "handshake", "halfClose", "maxConnectionDuration", "drain"})
  void aZeroTimeoutSaysToUseNone(String field) {
    String yaml = MINIMAL + "timeouts:\n  " + field + ": 0s\n";
    assertThat(onlyProblem(yaml))
        .isEqualTo(new Problem(FILE, 10, "timeouts." + field, "'0s': use none for no timeout"));
    if (!field.equals("drain")) {
      Problem listener =
          onlyProblem(
              MINIMAL.replace(
                  "    cluster: echo\n",
                  "    cluster: echo\n    timeouts: {" + field + ": 0ms}\n"));
      assertThat(listener.path()).isEqualTo("listeners[0].timeouts." + field);
      assertThat(listener.message()).contains("use none");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"connect", "idle", "handshake", "halfClose", "maxConnectionDuration", "drain"})
  void aTimeoutAboveAYearIsAProblem(String field) throws Exception {
    Problem problem = onlyProblem(MINIMAL + "timeouts:\n  " + field + ": 400d\n");
    assertThat(problem.path()).isEqualTo("timeouts." + field);
    assertThat(problem.line()).isEqualTo(10);
    assertThat(problem.message()).contains(field).contains("365 days");
    Problem overflow = onlyProblem(MINIMAL + "timeouts:\n  " + field + ": 9999999999999999999d\n");
    assertThat(overflow.message()).contains("too large");
    // The longest accepted timeout is a year.
    read(MINIMAL + "timeouts:\n  " + field + ": 365d\n");
  }

  @Test
  void aNameMustBeWordsAndDigits() {
    String yaml = MINIMAL.replace("name: front", "name: \"front door\"");
    Problem problem = onlyProblem(yaml);
    assertThat(problem.path()).isEqualTo("listeners[0].name");
    assertThat(problem.message()).contains("'front door' is not a name");
  }

  @Test
  void emptyListsAreProblems() {
    assertThat(problems("listeners: []\nclusters: [{name: echo, upstreams: []}]\n"))
        .extracting(Problem::path, Problem::message)
        .containsExactlyInAnyOrder(
            tuple("listeners", "needs at least one listener"),
            tuple("clusters[0].upstreams", "needs at least one upstream"));
  }

  @Test
  void anUpstreamListedTwiceIsAProblem() {
    // Two upstreams of one name would give /metrics two series with the same labels, which a
    // scrape refuses whole.
    assertThat(
            problems(
                "listeners: [{name: front, address: 127.0.0.1:7000, cluster: c}]\n"
                    + "clusters: [{name: c, upstreams: [{address: 127.0.0.1:7001},"
                    + " {address: 127.0.0.1:7001, weight: 2}]}]\n"))
        .extracting(Problem::path, Problem::message)
        .containsExactly(
            tuple(
                "clusters[0].upstreams[1]",
                "upstream 127.0.0.1:7001 is listed twice (use weight for a larger share)"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\n\n", "# only a comment\n"})
  void anEmptyFileIsOneProblem(String text) {
    Problem problem = onlyProblem(text);
    assertThat(problem.file()).isEqualTo(FILE);
    assertThat(problem.line()).isZero();
    assertThat(problem.message()).contains("empty");
  }

  @Test
  void aFileThatIsOnlyAScalarSaysAMappingIsExpected() {
    List<Problem> problems = problems("hello\n");
    assertThat(problems.getFirst())
        .isEqualTo(
            new Problem(FILE, 1, "", "expected a mapping of fields (name: value), found 'hello'"));
    assertThat(problems).extracting(Problem::message).allMatch(m -> !m.isBlank());
  }

  // ---- several problems at once ----

  private static final String SEVERAL =
      """
      listeners:
        - name: front
          address: localhost
          cluster: nope
        - name: back
          address: 127.0.0.1:7001
          cluster: echo
          maxConnections: 0
      clusters:
        - name: echo
          upstreams:
            - address: 127.0.0.1:7002
              weight: 0
      timeouts:
        idle: 0s
      """;

  @Test
  void everyProblemOfAFileIsReportedInOneException() {
    ConfigException e = exception(SEVERAL);
    assertThat(e.problems())
        .extracting(Problem::file, Problem::line, Problem::path)
        .containsExactlyInAnyOrder(
            tuple(FILE, 3, "listeners[0].address"),
            tuple(FILE, 4, "listeners[0].cluster"),
            tuple(FILE, 8, "listeners[1].maxConnections"),
            tuple(FILE, 13, "clusters[0].upstreams[0].weight"),
            tuple(FILE, 15, "timeouts.idle"));
    assertThat(e.getMessage()).startsWith("5 problems in the configuration:");
    for (Problem p : e.problems()) {
      assertThat(e.getMessage()).contains(p.toString());
    }
    assertThat(e.problems().getFirst().toString())
        .matches("sluice\\.yaml:\\d+: [A-Za-z\\[\\]0-9.]+: .+");
  }

  @Test
  void theTransportIsAutoUnlessNamedAndOnlyAutoEpollOrNio() throws Exception {
    assertThat(read(MINIMAL).transport()).isEqualTo(dev.sluice.net.Transport.AUTO);
    assertThat(read(MINIMAL + "transport: epoll\n").transport())
        .isEqualTo(dev.sluice.net.Transport.EPOLL);
    assertThat(read(MINIMAL + "transport: NIO\n").transport())
        .isEqualTo(dev.sluice.net.Transport.NIO);
    assertThat(problems(MINIMAL + "transport: kqueue\n"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("transport");
              assertThat(p.message()).contains("'kqueue' is not one of auto, epoll, nio");
            });
  }

  @Test
  void splicingIsAutoUnlessTurnedOff() throws Exception {
    assertThat(read(MINIMAL).splice()).isEqualTo(SpliceMode.AUTO);
    assertThat(read(MINIMAL + "splice: off\n").splice()).isEqualTo(SpliceMode.OFF);
    assertThat(problems(MINIMAL + "splice: always\n"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("splice");
              assertThat(p.message()).contains("'always' is not one of auto, off");
            });
  }

  @Test
  void theProblemsAreInFileOrder() {
    assertThat(exception(SEVERAL).problems())
        .extracting(Problem::line)
        .containsExactly(3, 4, 8, 13, 15);
  }

  // ---- helpers ----

  private ProxyConfig read(String yaml) throws ConfigException {
    return ConfigReader.read(yaml, FILE, baseDir);
  }

  private ConfigException exception(String yaml) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> read(yaml));
    assertThat(e).as("a ConfigException for:\n%s", yaml).isNotNull();
    assertThat(e.problems()).isNotEmpty().allSatisfy(p -> assertThat(p.file()).isEqualTo(FILE));
    return e;
  }

  private List<Problem> problems(String yaml) {
    return exception(yaml).problems();
  }

  private Problem onlyProblem(String yaml) {
    List<Problem> problems = problems(yaml);
    assertThat(problems).as("the problems of:\n%s", yaml).hasSize(1);
    return problems.getFirst();
  }

  /** The minimal configuration with {@code tls: FLOW} on its listener (line 5). */
  private static String withTls(String flow, Object... args) {
    return MINIMAL.replace(
        "    cluster: echo\n", "    cluster: echo\n    tls: " + flow.formatted(args) + "\n");
  }

  /** The 1-based line of the first line of {@code yaml} that contains {@code marker}. */
  private static int lineOf(String yaml, String marker) {
    String[] lines = yaml.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(marker)) {
        return i + 1;
      }
    }
    throw new AssertionError("no line with " + marker);
  }
}
