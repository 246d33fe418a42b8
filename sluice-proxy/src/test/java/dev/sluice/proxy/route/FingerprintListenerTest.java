package dev.sluice.proxy.route;

import static dev.sluice.proxy.testing.AdminClient.series;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser;
import dev.sluice.proxy.proxyprotocol.Tlv;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.TlsEchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * JA3 and JA4 of real clients through real listeners: openssl s_client, curl and gnutls-cli through
 * a terminating and a passthrough listener are logged with the fingerprints of the ClientHello they
 * send (captured first by a listener of the test's own); a blocklisted fingerprint is refused while
 * another client passes; a ClientHello that stalls halfway is closed; PROXY v2 headers carry the
 * fingerprints to an upstream that parses them. Each refusal is in the access log and the metrics.
 */
class FingerprintListenerTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  @Test
  void realClientsAreLoggedWithTheFingerprintsOfTheirClientHello() throws Exception {
    Fingerprint openssl = Fingerprint.of(capture(this::openssl));
    Fingerprint curl = Fingerprint.of(capture(this::curl));
    Fingerprint gnutls = Fingerprint.of(capture(this::gnutls));
    assertThat(List.of(openssl, curl, gnutls)).doesNotHaveDuplicates();
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        TlsEchoServer tlsEcho = new TlsEchoServer(pki.serverKeyMaterial())) {
      try (ProxyService service =
          start(
              """
              listeners:
                - name: term
                  address: 127.0.0.1:0
                  cluster: echo
                  tls: {certificates: [{cert: "%s", key: "%s"}]}
                - name: pass
                  address: 127.0.0.1:0
                  cluster: tlsecho
                  tls: {passthrough: true}
                - name: plain
                  address: 127.0.0.1:0
                  cluster: echo
              clusters:
                - {name: echo, upstreams: [{address: "%s"}]}
                - {name: tlsecho, upstreams: [{address: "%s"}]}
              """
                  .formatted(
                      pki.serverCert,
                      pki.serverKey,
                      Endpoint.format(echo.address()),
                      "127.0.0.1:" + tlsEcho.port()))) {
        openssl(port(service, "term"));
        curl(port(service, "term"));
        gnutls(port(service, "term"));
        openssl(port(service, "pass"));
        gnutls(port(service, "pass"));
        try (Socket plain = new Socket()) {
          plain.connect(service.runtime().listener("plain").boundAddress());
          plain.getOutputStream().write("plain\n".getBytes(StandardCharsets.US_ASCII));
          plain.shutdownOutput();
          plain.getInputStream().readAllBytes();
        }
        List<Map<String, Object>> lines = awaitLines(6);
        assertThat(lines)
            .filteredOn(l -> "term".equals(l.get("listener")))
            .extracting(l -> new Fingerprint((String) l.get("ja3"), (String) l.get("ja4")))
            .containsExactlyInAnyOrder(openssl, curl, gnutls);
        assertThat(lines)
            .filteredOn(l -> "pass".equals(l.get("listener")))
            .extracting(l -> new Fingerprint((String) l.get("ja3"), (String) l.get("ja4")))
            .containsExactlyInAnyOrder(openssl, gnutls);
        assertThat(lines)
            .filteredOn(l -> "plain".equals(l.get("listener")))
            .singleElement()
            .satisfies(
                l -> {
                  assertThat(l).containsEntry("ja3", null).containsEntry("ja4", null);
                });
      }
    }
  }

  @Test
  void aBlocklistedFingerprintIsRefusedWhileAnotherClientPasses() throws Exception {
    Fingerprint openssl = Fingerprint.of(capture(this::openssl));
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        TlsEchoServer tlsEcho = new TlsEchoServer(pki.serverKeyMaterial())) {
      try (ProxyService service =
          start(
              """
              listeners:
                - name: term
                  address: 127.0.0.1:0
                  cluster: echo
                  tls: {certificates: [{cert: "%s", key: "%s"}]}
                  limits: {ja4Blocklist: ["%s"]}
                - name: pass
                  address: 127.0.0.1:0
                  cluster: tlsecho
                  tls: {passthrough: true}
                  limits: {ja3Blocklist: ["%s"]}
              clusters:
                - {name: echo, upstreams: [{address: "%s"}]}
                - {name: tlsecho, upstreams: [{address: "%s"}]}
              """
                  .formatted(
                      pki.serverCert,
                      pki.serverKey,
                      openssl.ja4(),
                      openssl.ja3().toUpperCase(java.util.Locale.ROOT), // hex in any case
                      Endpoint.format(echo.address()),
                      "127.0.0.1:" + tlsEcho.port()))) {
        assertThat(openssl(port(service, "term"))).doesNotContain("ping");
        assertThat(openssl(port(service, "pass"))).doesNotContain("ping");
        // The JDK's client has another fingerprint: it passes both, and an open pair's
        // fingerprints are in the runtime dump.
        AdminClient admin = new AdminClient(service.admin().address());
        try (SSLSocket held = jdkSocket(port(service, "term"))) {
          assertThat(exchange(held, "held\n")).isEqualTo("held\n");
          assertThat(admin.get("/dump").body())
              .containsPattern(" ja3 [0-9a-f]{32} ja4 t13d[0-9]{4}00_[0-9a-f]{12}_[0-9a-f]{12}");
        }
        assertThat(jdkClient(port(service, "pass"), "ping\n")).isEqualTo("ping\n");
        List<Map<String, Object>> lines = awaitLines(4);
        assertThat(lines)
            .filteredOn(l -> "fingerprint_blocked".equals(l.get("cause")))
            .hasSize(2)
            .allSatisfy(
                l -> {
                  assertThat(l).containsEntry("ja3", openssl.ja3());
                  assertThat(l).containsEntry("ja4", openssl.ja4());
                })
            .anySatisfy(l -> assertThat(l.get("detail").toString()).contains("JA4"))
            .anySatisfy(l -> assertThat(l.get("detail").toString()).contains("JA3"));
        assertThat(lines)
            .filteredOn(l -> !"fingerprint_blocked".equals(l.get("cause")))
            .hasSize(2)
            .allSatisfy(l -> assertThat(l.get("ja4")).isNotEqualTo(openssl.ja4()));
        Map<String, Double> m = admin.scrape();
        for (String listener : List.of("term", "pass")) {
          assertThat(
                  m.get(
                      series(
                          "sluice_connections_closed_total",
                          "listener",
                          listener,
                          "cause",
                          "fingerprint_blocked")))
              .as(listener)
              .isEqualTo(1.0);
        }
      }
    }
  }

  @Test
  void aClientHelloThatStallsHalfwayIsClosedAsIncomplete() throws Exception {
    byte[] hello = FingerprintTest.capture("openssl-default");
    byte[] half = Arrays.copyOf(hello, hello.length / 2);
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      String tls = "{certificates: [{cert: \"%s\", key: \"%s\"}]}";
      try (ProxyService service =
          start(
              """
              listeners:
                - name: guarded
                  address: 127.0.0.1:0
                  cluster: echo
                  tls: %s
                  limits: {ja3Blocklist: [0123456789abcdef0123456789abcdef]}
                  timeouts: {handshake: 300ms}
                - name: pass
                  address: 127.0.0.1:0
                  cluster: echo
                  tls: {passthrough: true}
                  limits: {ja4Blocklist: [t13d1516h2_8daaf6152771_e5627efa2ab1]}
                  timeouts: {handshake: 300ms}
                - name: open
                  address: 127.0.0.1:0
                  cluster: echo
                  tls: %s
                  timeouts: {handshake: 300ms}
              clusters:
                - {name: echo, upstreams: [{address: "%s"}]}
              """
                  .formatted(
                      tls.formatted(pki.serverCert, pki.serverKey),
                      tls.formatted(pki.serverCert, pki.serverKey),
                      Endpoint.format(echo.address())))) {
        for (String listener : List.of("guarded", "pass", "open")) {
          try (Socket s = new Socket()) {
            s.connect(service.runtime().listener(listener).boundAddress());
            s.setSoTimeout((int) Await.PATIENCE.toMillis());
            s.getOutputStream().write(half); // and then nothing
            assertThat(readToEnd(s.getInputStream())).as(listener).isEmpty();
          }
        }
        List<Map<String, Object>> lines = awaitLines(3);
        // A whole ClientHello that cannot be read (version SSL 3.0) has no fingerprint either.
        byte[] unreadable = hello.clone();
        unreadable[10] = 0;
        for (String listener : List.of("guarded", "open")) {
          try (Socket s = new Socket()) {
            s.connect(service.runtime().listener(listener).boundAddress());
            s.setSoTimeout((int) Await.PATIENCE.toMillis());
            s.getOutputStream().write(unreadable);
            readToEnd(s.getInputStream());
          }
        }
        List<Map<String, Object>> unread = awaitLines(5).subList(3, 5);
        assertThat(unread)
            .filteredOn(l -> "guarded".equals(l.get("listener")))
            .singleElement()
            .satisfies(l -> assertThat(l).containsEntry("cause", "client_hello_incomplete"));
        assertThat(unread)
            .filteredOn(l -> "open".equals(l.get("listener")))
            .singleElement()
            .satisfies(
                l -> {
                  // With supported_versions in it, BoringSSL ignores the hello's version (RFC
                  // 8446, 4.2.1), answers, and waits for a client that sends nothing more.
                  assertThat(l)
                      .containsEntry(
                          "cause",
                          TlsTestBase.onBoringSsl()
                              ? "tls_handshake_timeout"
                              : "tls_handshake_failed");
                  assertThat(l.get("client").toString()).startsWith("127.0.0.1:");
                });
        assertThat(lines)
            .filteredOn(l -> !"open".equals(l.get("listener")))
            .hasSize(2)
            .allSatisfy(
                l -> {
                  assertThat(l).containsEntry("cause", "client_hello_incomplete");
                  assertThat(l).containsEntry("ja3", null);
                });
        // Without a blocklist nothing is lost by waiting for TLS: the handshake timed out.
        assertThat(lines)
            .filteredOn(l -> "open".equals(l.get("listener")))
            .singleElement()
            .satisfies(l -> assertThat(l).containsEntry("cause", "tls_handshake_timeout"));
        Map<String, Double> m = new AdminClient(service.admin().address()).scrape();
        for (String[] expected : new String[][] {{"guarded", "2.0"}, {"pass", "1.0"}}) {
          assertThat(
                  m.get(
                      series(
                          "sluice_connections_closed_total",
                          "listener",
                          expected[0],
                          "cause",
                          "client_hello_incomplete")))
              .as(expected[0])
              .isEqualTo(Double.parseDouble(expected[1]));
        }
      }
    }
  }

  @Test
  void proxyV2HeadersCarryTheFingerprintsInTheirTlvs() throws Exception {
    Fingerprint openssl = Fingerprint.of(capture(this::openssl));
    try (ServerSocket upstream =
            new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        ProxyService service =
            start(
                """
                listeners:
                  - name: term
                    address: 127.0.0.1:0
                    cluster: default
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                  - name: other
                    address: 127.0.0.1:0
                    cluster: custom
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  - name: default
                    upstreams: [{address: "127.0.0.1:%d"}]
                    proxyProtocol: v2
                  - name: custom
                    upstreams: [{address: "127.0.0.1:%d"}]
                    proxyProtocol: v2
                    proxyProtocolTlvs: {ja3: 0xE5, ja4: none}
                """
                    .formatted(
                        pki.serverCert,
                        pki.serverKey,
                        pki.serverCert,
                        pki.serverKey,
                        upstream.getLocalPort(),
                        upstream.getLocalPort()))) {
      for (String listener : List.of("term", "other")) {
        CompletableFuture<String> client =
            CompletableFuture.supplyAsync(() -> openssl(port(service, listener)));
        try (Socket up = accept(upstream, client)) {
          up.setSoTimeout((int) Await.PATIENCE.toMillis());
          ProxyHeader header = readHeader(up.getInputStream());
          Map<Integer, String> tlvs = new java.util.HashMap<>();
          for (Tlv tlv : header.tlvs()) {
            tlvs.put(tlv.type(), tlv.text());
          }
          if (listener.equals("term")) {
            assertThat(tlvs).containsEntry(0xE0, openssl.ja3()).containsEntry(0xE1, openssl.ja4());
          } else {
            assertThat(tlvs).containsEntry(0xE5, openssl.ja3());
            assertThat(tlvs.keySet()).doesNotContain(0xE0, 0xE1);
          }
        }
        client.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
      }
    }
  }

  // ---- clients ----

  /** openssl s_client to 127.0.0.1:port (SNI localhost), sending a line: what it printed. */
  private String openssl(int port) {
    return run(
        List.of(
            "openssl",
            "s_client",
            "-connect",
            "127.0.0.1:" + port,
            "-servername",
            "localhost",
            "-CAfile",
            pki.caCert.toString(),
            "-brief"), // unlike -quiet, ends at the end of its input
        "ping\n");
  }

  /** curl to https://localhost:port/ (the echo answers no HTTP: only the handshake matters). */
  private String curl(int port) {
    return run(
        List.of(
            "curl",
            "-s",
            "--max-time",
            "5",
            "--cacert",
            pki.caCert.toString(),
            "--resolve",
            "localhost:" + port + ":127.0.0.1",
            "https://localhost:" + port + "/"),
        "");
  }

  /** gnutls-cli to 127.0.0.1:port (SNI localhost), sending a line. */
  private String gnutls(int port) {
    return run(
        List.of(
            "gnutls-cli",
            "--x509cafile",
            pki.caCert.toString(),
            "--sni-hostname",
            "localhost",
            "--verify-hostname",
            "localhost",
            "-p",
            Integer.toString(port),
            "127.0.0.1"),
        "ping\n");
  }

  private String jdkClient(int port, String text) throws Exception {
    try (SSLSocket s = jdkSocket(port)) {
      return exchange(s, text);
    }
  }

  /** A JDK client connected to 127.0.0.1:port (SNI localhost), before its handshake. */
  private SSLSocket jdkSocket(int port) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new KeyStoreTrust(pki.caCert).managers(), null);
    SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
    SSLParameters parameters = s.getSSLParameters();
    parameters.setServerNames(List.of(new javax.net.ssl.SNIHostName("localhost")));
    s.setSSLParameters(parameters);
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  private static String exchange(SSLSocket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return new String(s.getInputStream().readNBytes(text.length()), StandardCharsets.US_ASCII);
  }

  /** The CA as the JDK's trust managers. */
  private record KeyStoreTrust(Path caCert) {
    javax.net.ssl.TrustManager[] managers() throws Exception {
      java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
      store.load(null, null);
      try (InputStream in = Files.newInputStream(caCert)) {
        store.setCertificateEntry(
            "ca",
            java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers();
    }
  }

  /** A client run against a port of the test's own that reads one ClientHello: its offer. */
  private static ClientHello.Offer capture(java.util.function.IntFunction<String> client)
      throws Exception {
    try (ServerSocket listener =
        new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CompletableFuture<String> run =
          CompletableFuture.supplyAsync(() -> client.apply(listener.getLocalPort()));
      ClientHello.Result result;
      try (Socket s = accept(listener, run)) {
        s.setSoTimeout((int) Await.PATIENCE.toMillis());
        ClientHello.Reader reader = new ClientHello.Reader(1 << 16);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        do {
          int n = s.getInputStream().read(buffer);
          if (n < 0) {
            throw new AssertionError("the client closed before its ClientHello was whole");
          }
          bytes.write(buffer, 0, n);
          result = reader.read(ByteBuffer.wrap(bytes.toByteArray()));
        } while (result instanceof ClientHello.NeedMore);
      }
      run.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(result).isInstanceOf(ClientHello.Parsed.class);
      return ((ClientHello.Parsed) result).offer();
    }
  }

  /**
   * The next connection to {@code listener}, which {@code client} makes (itself or through the
   * proxy, which may connect after the client has ended). A client that failed (one that is not
   * installed, say) fails the test at once with its reason, rather than leaving it in accept.
   */
  private static Socket accept(ServerSocket listener, CompletableFuture<String> client)
      throws IOException {
    long deadline = System.nanoTime() + Await.PATIENCE.toNanos();
    listener.setSoTimeout(100);
    while (true) {
      try {
        return listener.accept();
      } catch (java.net.SocketTimeoutException notYet) {
        if (client.isCompletedExceptionally()) {
          throw new AssertionError(
              "the client failed without connecting: " + client.exceptionNow(),
              client.exceptionNow());
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "no connection within "
                  + Await.PATIENCE
                  + (client.isDone() ? "; the client printed: " + client.resultNow() : ""));
        }
      }
    }
  }

  private static String run(List<String> command, String stdin) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (var in = p.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      } catch (IOException closed) {
        // the client may exit first
      }
      CompletableFuture<byte[]> out =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return p.getInputStream().readAllBytes();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      if (!p.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " did not finish");
      }
      return new String(
          out.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS), StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new AssertionError(command + ": " + e, e);
    }
  }

  // ---- the proxy ----

  private ProxyService start(String yaml) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        yaml
            + """
            accessLog: {path: access.log}
            admin: {address: 127.0.0.1:0}
            """);
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  private static int port(ProxyService service, String listener) {
    return ((InetSocketAddress) service.runtime().listener(listener).boundAddress()).getPort();
  }

  private static ProxyHeader readHeader(InputStream in) throws IOException {
    ProxyHeaderParser parser =
        new ProxyHeaderParser(
            EnumSet.allOf(ProxyHeader.Version.class), ProxyHeaderParser.V2_MAX_BYTES);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("no whole header: " + bytes.size() + " B");
      }
      bytes.write(b);
      switch (parser.parse(ByteBuffer.wrap(bytes.toByteArray()))) {
        case ProxyHeaderParser.Parsed parsed -> {
          return parsed.header();
        }
        case ProxyHeaderParser.Invalid invalid -> throw new AssertionError(invalid.reason());
        case ProxyHeaderParser.NeedMore more -> {}
      }
    }
  }

  private static byte[] readToEnd(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException reset) {
      return new byte[0]; // a refusal may reset: either way nothing came back
    }
  }

  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> awaitLines(int count) {
    Path log = dir.resolve("access.log");
    List<Map<String, Object>> parsed = new ArrayList<>();
    Await.until(
        () -> {
          parsed.clear();
          try {
            if (Files.exists(log)) {
              for (String line : Files.readAllLines(log)) {
                parsed.add(
                    (Map<String, Object>)
                        new Load(LoadSettings.builder().build()).loadFromString(line));
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return parsed.size() >= count;
        },
        () -> count + " lines in " + log + ": " + parsed);
    return List.copyOf(parsed);
  }
}
