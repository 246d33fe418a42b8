package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
                "-rev",
                "-quiet"));
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
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
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
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    try (Socket s = new Socket(address.getAddress(), address.getPort())) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
      StringBuilder back = new StringBuilder();
      int c;
      try {
        while ((c = s.getInputStream().read()) >= 0 && c != '\n') {
          back.append((char) c);
        }
      } catch (java.net.SocketException reset) {
        c = -1; // the proxy resets a client whose upstream it could not reach
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
}
