package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-encryption to a real TLS server, Debian's {@code openssl s_server}: the proxy verifies its
 * certificate against the configured CA and host name (a wrong one is refused, counted, and the
 * client closed), and presents a client certificate when the upstream asks for one.
 */
class UpstreamTlsTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  /** openssl s_server answering each line reversed ({@code -rev}). */
  private static Process server(int port, Path cert, Path key, List<String> extra)
      throws IOException {
    return server(port, cert, key, extra, true);
  }

  /** openssl s_server, answering each line reversed or ({@code reverse} false) as {@code extra}. */
  private static Process server(int port, Path cert, Path key, List<String> extra, boolean reverse)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_server",
                "-accept",
                "127.0.0.1:" + port,
                "-cert",
                cert.toString(),
                "-key",
                key.toString(),
                "-quiet"));
    if (reverse) {
      command.add("-rev");
    }
    command.addAll(extra);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
              } catch (IOException ignored) {
                // gone
              }
            });
    Await.until(
        () -> {
          try {
            new Socket("127.0.0.1", port).close();
            return true;
          } catch (IOException e) {
            return false;
          }
        },
        () -> "openssl s_server to listen on " + port);
    return p;
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private String yaml(int port, String tls) {
    return """
        listeners:
          - {name: front, address: "127.0.0.1:0", cluster: secure}
        clusters:
          - name: secure
            upstreams: [{address: "127.0.0.1:%d"}]
            tls: %s
            retries: {tries: 1}
        """
        .formatted(port, tls);
  }

  private static String roundTrip(ProxyFixture proxy, String line) throws IOException {
    return roundTrip(proxy.address("front"), line);
  }

  private static String roundTrip(SocketAddress proxy, String line) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy;
    try (Socket s = new Socket(address.getAddress(), address.getPort())) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      StringBuilder back = new StringBuilder();
      int c;
      try {
        s.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        while ((c = s.getInputStream().read()) >= 0 && c != '\n') {
          back.append((char) c);
        }
      } catch (java.net.SocketException reset) {
        c = -1; // the proxy resets a client whose upstream failed, even before it wrote
      }
      return c < 0 && back.isEmpty() ? null : back.toString();
    }
  }

  @Test
  void theProxyReEncryptsToAVerifiedUpstreamAndRefusesAWrongCertificate() throws Exception {
    TestPki.requireTool("openssl", "version");
    int good = freePort();
    int wrong = freePort();
    Process a = server(good, pki.serverCert, pki.serverKey, List.of());
    Process b = server(wrong, pki.otherCert, pki.otherKey, List.of());
    try {
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml(good, "{ca: \"%s\", serverName: localhost}".formatted(pki.caCert)), dir)) {
        assertThat(roundTrip(proxy, "hello upstream")).isEqualTo("maertspu olleh");
      }
      // The certificate is for other.test, not localhost: the handshake is refused.
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml(wrong, "{ca: \"%s\", serverName: localhost}".formatted(pki.caCert)), dir)) {
        assertThat(roundTrip(proxy, "hello")).isNull();
        Pair pair = proxy.awaitClosed(1).getFirst();
        assertThat(pair.cause()).isEqualTo(CloseCause.UPSTREAM_TLS_FAILED);
        assertThat(pair.causeDetail()).contains("127.0.0.1:" + wrong);
      }
      // A CA that did not sign it: refused too.
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml(good, "{ca: \"%s\", serverName: localhost}".formatted(pki.rogueCaCert)), dir)) {
        assertThat(roundTrip(proxy, "hello")).isNull();
        assertThat(proxy.awaitClosed(1).getFirst().cause())
            .isEqualTo(CloseCause.UPSTREAM_TLS_FAILED);
      }
    } finally {
      a.destroy();
      b.destroy();
      a.waitFor(10, TimeUnit.SECONDS);
      b.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * {@code engine: openssl} on a cluster: the second connection to an upstream resumes the first
   * one's session (s_server's page says "Reused"), TLS 1.3 and 1.2.
   */
  @Test
  void anOpensslClusterResumesItsSessionWithAnUpstream() throws Exception {
    requireOpensslEngine();
    for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
      int port = freePort();
      Process upstream =
          server(
              port,
              pki.serverCert,
              pki.serverKey,
              List.of("-www", protocol.equals("TLSv1.3") ? "-tls1_3" : "-tls1_2"),
              false);
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml(
                  port,
                  "{ca: \"%s\", serverName: localhost, engine: openssl}".formatted(pki.caCert)),
              dir)) {
        assertThat(page(proxy)).contains("New, " + protocol);
        assertThat(page(proxy)).as(protocol).contains("Reused, " + protocol);
        assertThat(page(proxy)).as(protocol).contains("Reused, " + protocol);
      } finally {
        stop(upstream);
      }
    }
  }

  /** {@code sessionCache: {size: 0}}: the cluster keeps no session, every connection is new. */
  @Test
  void aClusterWithoutASessionCacheNeverResumes() throws Exception {
    requireOpensslEngine();
    int port = freePort();
    Process upstream =
        server(port, pki.serverCert, pki.serverKey, List.of("-www", "-tls1_2"), false);
    try (ProxyFixture proxy =
        ProxyFixture.start(
            yaml(
                port,
                "{ca: \"%s\", serverName: localhost, engine: openssl, sessionCache: {size: 0}}"
                    .formatted(pki.caCert)),
            dir)) {
      assertThat(page(proxy)).contains("New, TLSv1.2");
      assertThat(page(proxy)).contains("New, TLSv1.2");
    } finally {
      stop(upstream);
    }
  }

  /**
   * {@code engine: openssl} trusts the configured CA only: an upstream whose certificate another CA
   * signed fails the handshake, and the pair says why.
   */
  @Test
  void anOpensslClusterRefusesAnUpstreamItsCaDidNotSign() throws Exception {
    requireOpensslEngine();
    int port = freePort();
    Process upstream = server(port, pki.serverCert, pki.serverKey, List.of());
    try (ProxyFixture proxy =
        ProxyFixture.start(
            yaml(
                port,
                "{ca: \"%s\", serverName: localhost, engine: openssl}".formatted(pki.rogueCaCert)),
            dir)) {
      assertThat(roundTrip(proxy, "hello")).isNull();
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.UPSTREAM_TLS_FAILED);
      assertThat(pair.causeDetail())
          .contains("127.0.0.1:" + port)
          .contains("unable to get local issuer certificate");
    } finally {
      stop(upstream);
    }
  }

  /** The page an {@code s_server -www} upstream answers a request through the proxy with. */
  private static String page(ProxyFixture proxy) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    try (Socket s = new Socket(address.getAddress(), address.getPort())) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void theProxyPresentsAClientCertificateToAnUpstreamThatRequiresOne() throws Exception {
    TestPki.requireTool("openssl", "version");
    int port = freePort();
    Process server =
        server(
            port,
            pki.serverCert,
            pki.serverKey,
            List.of("-Verify", "1", "-CAfile", pki.caCert.toString(), "-verify_return_error"));
    try {
      try (ProxyFixture proxy =
          ProxyFixture.start(
              yaml(
                  port,
                  "{ca: \"%s\", serverName: localhost, cert: \"%s\", key: \"%s\"}"
                      .formatted(pki.caCert, pki.clientCert, pki.clientKey)),
              dir)) {
        assertThat(roundTrip(proxy, "mutual")).isEqualTo("lautum");
      }
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** A CA of its own with a server certificate for localhost and a client one: a rotation. */
  private record Rotated(
      Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {}

  private Rotated rotatedPki() throws Exception {
    Path d = Files.createDirectories(dir.resolve("rotated"));
    openssl(
        d,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "30",
        "-subj",
        "/CN=Rotated CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign");
    issue(d, "server", "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n");
    issue(d, "client", "extendedKeyUsage=clientAuth\n");
    return new Rotated(
        d.resolve("ca.pem"),
        d.resolve("server.pem"),
        d.resolve("server.key"),
        d.resolve("client.pem"),
        d.resolve("client.key"));
  }

  private static void issue(Path d, String name, String extensions) throws Exception {
    Files.writeString(d.resolve(name + ".ext"), extensions);
    openssl(
        d,
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-out",
        name + ".key");
    openssl(d, "req", "-new", "-key", name + ".key", "-subj", "/CN=" + name, "-out", name + ".csr");
    openssl(
        d,
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "30",
        "-extfile",
        name + ".ext",
        "-out",
        name + ".pem");
  }

  private static void openssl(Path d, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(d.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", command) + ":\n" + output).isZero();
  }

  private static void requireOpensslEngine() {
    TestPki.requireTool("openssl", "version");
    org.assertj.core.api.Assumptions.assumeThat(
            dev.sluice.tls.TlsEngineKind.openSslUnavailableReason())
        .as("OpenSSL engine")
        .isNull();
  }

  private static void stop(Process server) throws InterruptedException {
    server.destroy();
    server.waitFor(10, TimeUnit.SECONDS);
  }

  private static void replace(Path file, Path with) throws IOException {
    Files.copy(with, file, StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void aCaAndClientCertificateRenewedInPlaceReachNewConnectionsAfterAReload() throws Exception {
    TestPki.requireTool("openssl", "version");
    Path ca = Files.copy(pki.caCert, dir.resolve("upstream-ca.pem"));
    Path cert = Files.copy(pki.clientCert, dir.resolve("client.pem"));
    Path key = Files.copy(pki.clientKey, dir.resolve("client.key"));
    int port = freePort();
    String yaml =
        yaml(
            port,
            "{ca: \"%s\", serverName: localhost, cert: \"%s\", key: \"%s\"}"
                .formatted(ca, cert, key));
    Process server =
        server(
            port,
            pki.serverCert,
            pki.serverKey,
            List.of("-Verify", "1", "-CAfile", pki.caCert.toString(), "-verify_return_error"));
    try (ProxyFixture proxy = ProxyFixture.start(yaml, dir)) {
      assertThat(roundTrip(proxy, "before")).isEqualTo("erofeb");

      // The upstream moves to a new CA, for its own certificate and its clients'.
      Rotated next = rotatedPki();
      stop(server);
      server =
          server(
              port,
              next.serverCert(),
              next.serverKey(),
              List.of("-Verify", "1", "-CAfile", next.ca().toString(), "-verify_return_error"));
      assertThat(roundTrip(proxy, "stale")).as("the old CA does not trust it").isNull();

      // The proxy's files are renewed in place: same paths, same configuration.
      replace(ca, next.ca());
      replace(cert, next.clientCert());
      replace(key, next.clientKey());
      proxy.runtime().reload(ConfigReader.read(yaml, "test.yaml", dir));
      assertThat(roundTrip(proxy, "after")).isEqualTo("retfa");
    } finally {
      stop(server);
    }
  }

  @Test
  void aCaRenewedInAnotherDirectoryIsWatchedAndReloaded() throws Exception {
    TestPki.requireTool("openssl", "version");
    Path tls = Files.createDirectories(dir.resolve("tls"));
    Path ca = Files.copy(pki.caCert, tls.resolve("upstream-ca.pem"));
    int port = freePort();
    Path file = Files.createDirectories(dir.resolve("conf")).resolve("sluice.yaml");
    Files.writeString(file, yaml(port, "{ca: \"%s\", serverName: localhost}".formatted(ca)));
    Process server = server(port, pki.serverCert, pki.serverKey, List.of());
    try (ProxyService service =
        ProxyService.start(ConfigReader.read(file), file, PairObserver.NONE)) {
      SocketAddress front = service.runtime().listener("front").boundAddress();
      assertThat(roundTrip(front, "before")).isEqualTo("erofeb");

      Rotated next = rotatedPki();
      stop(server);
      server = server(port, next.serverCert(), next.serverKey(), List.of());
      replace(ca, next.ca());
      Await.until(() -> service.reloads() == 1, () -> "the renewed CA to be reloaded");
      assertThat(roundTrip(front, "after")).isEqualTo("retfa");
    } finally {
      stop(server);
    }
  }
}
