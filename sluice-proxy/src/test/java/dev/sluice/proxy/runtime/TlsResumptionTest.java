package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.metrics.ListenerStats;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.OpensslSession;
import dev.sluice.testing.TestPki;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session saved by {@code openssl s_client} resumes across a reload that leaves the listener's
 * TLS settings and files as they were (the reload keeps its SSLContext: session cache and ticket
 * keys), also when the reload changes something else, and does not resume once the certificate
 * changed. TLS 1.3 (tickets), TLS 1.2 with tickets and TLS 1.2 with session IDs alike; each
 * handshake is counted as full or resumed.
 */
class TlsResumptionTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  private static final List<String[]> KINDS =
      List.of(
          new String[] {"-tls1_3", "tickets"},
          new String[] {"-tls1_2", "tickets"},
          new String[] {"-tls1_2", "ids"});

  private Path writeConfig(Path cert, Path key, String upstream, String extra) throws Exception {
    return writeConfig(cert, key, "", upstream, extra);
  }

  private Path writeConfig(Path cert, Path key, String tlsExtra, String upstream, String extra)
      throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: c0
            tls: {certificates: [{cert: "%s", key: "%s"}]%s}
        %s
        clusters:
          - {name: c0, upstreams: [{address: "%s"}]}
        """
            .formatted(cert, key, tlsExtra, extra, upstream));
    return file;
  }

  private static ProxyService start(Path file) throws Exception {
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  private static InetSocketAddress front(ProxyService service) {
    return (InetSocketAddress) service.runtime().listener("front").boundAddress();
  }

  private OpensslSession session(String[] kind) {
    return new OpensslSession(
        dir.resolve(kind[0] + "-" + kind[1] + ".sess"), kind[0], kind[1].equals("tickets"));
  }

  @Test
  void aSessionResumesAcrossAReloadOfAnUnchangedConfiguration() throws Exception {
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path cert = Files.copy(pki.serverCert, dir.resolve("listener.pem"));
      Path key = Files.copy(pki.serverKey, dir.resolve("listener.key"));
      Path file = writeConfig(cert, key, upstream.address(), "");
      try (ProxyService service = start(file)) {
        ListenerStats stats = service.runtime().listener("front").stats();
        for (String[] kind : KINDS) {
          OpensslSession client = session(kind);
          String what = String.join(" ", kind);
          OpensslSession.Outcome first = client.first(front(service));
          assertThat(first.reused()).as(what + ": the first connection").isFalse();
          assertThat(first.protocol()).isEqualTo(kind[0].equals("-tls1_3") ? "TLSv1.3" : "TLSv1.2");
          assertThat(client.again(front(service)).reused()).as(what + ", before a reload").isTrue();
          // The same bytes written again (an editor's save, a config manager's run), then a reload.
          Files.copy(pki.serverCert, cert, StandardCopyOption.REPLACE_EXISTING);
          assertThat(service.reload("test")).isTrue();
          assertThat(client.again(front(service)).reused())
              .as(what + ", after a reload that changed nothing")
              .isTrue();
        }
        assertThat(stats.handshakes(false)).as("full handshakes").isEqualTo(KINDS.size());
        assertThat(stats.handshakes(true)).as("resumed handshakes").isEqualTo(2L * KINDS.size());
      }
    }
  }

  @Test
  void aSessionResumesAcrossAReloadThatChangesSomethingElse() throws Exception {
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file = writeConfig(pki.serverCert, pki.serverKey, upstream.address(), "");
      try (ProxyService service = start(file)) {
        List<OpensslSession> clients = KINDS.stream().map(this::session).toList();
        for (OpensslSession client : clients) {
          assertThat(client.first(front(service)).reused()).isFalse();
        }
        // Another listener, and the timeouts (the handshake's among them) changed.
        writeConfig(
            pki.serverCert,
            pki.serverKey,
            upstream.address(),
            """
              - name: other
                address: 127.0.0.1:0
                cluster: c0
            timeouts: {handshake: 7s, idle: 3m}
            """);
        assertThat(service.reload("test")).isTrue();
        assertThat(service.runtime().listener("other")).isNotNull();
        assertThat(service.runtime().listener("front").config().timeouts().handshake())
            .hasSeconds(7);
        for (OpensslSession client : clients) {
          assertThat(client.again(front(service)).reused())
              .as(client.protocol() + (client.tickets() ? " tickets" : " ids"))
              .isTrue();
        }
        // The listener moved to another port: bound anew, it keeps its sessions too.
        int moved;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
          moved = probe.getLocalPort();
        }
        Files.writeString(
            file, Files.readString(file).replaceFirst("127.0.0.1:0", "127.0.0.1:" + moved));
        assertThat(service.reload("test")).isTrue();
        assertThat(front(service).getPort()).isEqualTo(moved);
        for (OpensslSession client : clients) {
          assertThat(client.again(front(service)).reused())
              .as(client.protocol() + (client.tickets() ? " tickets" : " ids") + ", moved")
              .isTrue();
        }
      }
    }
  }

  @Test
  void aSessionDoesNotResumeOnceTheCertificateChanged() throws Exception {
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path cert = Files.copy(pki.serverCert, dir.resolve("listener.pem"));
      Path key = Files.copy(pki.serverKey, dir.resolve("listener.key"));
      Path file = writeConfig(cert, key, upstream.address(), "");
      try (ProxyService service = start(file)) {
        List<OpensslSession> clients = KINDS.stream().map(this::session).toList();
        for (OpensslSession client : clients) {
          assertThat(client.first(front(service)).reused()).isFalse();
          assertThat(client.again(front(service)).reused()).isTrue();
        }
        // Same paths, another certificate and key: sessions made under the old one are not kept.
        Files.copy(pki.otherCert, cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(pki.otherKey, key, StandardCopyOption.REPLACE_EXISTING);
        assertThat(service.reload("test")).isTrue();
        for (OpensslSession client : clients) {
          OpensslSession.Outcome after = client.again(front(service));
          assertThat(after.reused())
              .as(client.protocol() + (client.tickets() ? " tickets" : " ids"))
              .isFalse();
          assertThat(after.output()).contains("CN = other.test");
        }
      }
    }
  }

  @Test
  void theSessionCacheKeepsAsManySessionsAsItsSize() throws Exception {
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file =
          writeConfig(
              pki.serverCert, pki.serverKey, ", sessionCache: {size: 1}", upstream.address(), "");
      try (ProxyService service = start(file)) {
        // Session IDs: resumed from the server's cache, which holds one session.
        OpensslSession a = new OpensslSession(dir.resolve("a.sess"), "-tls1_2", false);
        OpensslSession b = new OpensslSession(dir.resolve("b.sess"), "-tls1_2", false);
        assertThat(a.first(front(service)).reused()).isFalse();
        assertThat(a.again(front(service)).reused()).as("a, alone in the cache").isTrue();
        assertThat(b.first(front(service)).reused()).isFalse();
        assertThat(a.again(front(service)).reused()).as("a, after b took its place").isFalse();
      }
    }
  }

  @Test
  void theSessionTimeoutIsTheTicketsLifetimeAndEndsCachedSessions() throws Exception {
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file =
          writeConfig(
              pki.serverCert,
              pki.serverKey,
              ", sessionCache: {timeout: 1s}",
              upstream.address(),
              "");
      try (ProxyService service = start(file)) {
        for (OpensslSession client : KINDS.stream().map(this::session).toList()) {
          assertThat(client.first(front(service)).reused()).isFalse();
          if (client.tickets()) {
            assertThat(client.describe())
                .as(client.protocol() + ": the lifetime the ticket announces")
                .contains("lifetime hint: 1 (seconds)");
          } else {
            // Past the timeout (an order, not a measurement): OpenSSL counts whole seconds, so a
            // session it caches lives up to a second past its timeout.
            Thread.sleep(2_100);
            assertThat(client.again(front(service)).reused())
                .as("a session ID older than the timeout")
                .isFalse();
          }
        }
      }
    }
  }
}
