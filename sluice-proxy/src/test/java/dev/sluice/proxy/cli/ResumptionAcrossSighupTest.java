package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.OpensslSession;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user's check, as a process: a session saved by {@code openssl s_client -sess_out} resumes
 * after {@code kill -HUP} of an unchanged configuration (TLS 1.3 and 1.2), {@code /metrics} counts
 * the full and the resumed handshakes, and a new process started over SO_REUSEPORT (an upgrade)
 * cannot resume it: with the JDK's TLS the ticket keys and the session cache live in the process.
 */
class ResumptionAcrossSighupTest {
  @TempDir Path dir;

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  @Test
  void aSavedSessionResumesAfterSighupButNotInANewProcess() throws Exception {
    TestPki pki = TestPki.get();
    int port = freePort();
    int adminPort = freePort();
    InetSocketAddress front = new InetSocketAddress("127.0.0.1", port);
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: front
              address: 127.0.0.1:%d
              cluster: c0
              tls: {certificates: [{cert: "%s", key: "%s"}]}
          clusters:
            - {name: c0, upstreams: [{address: "%s"}]}
          admin: {address: 127.0.0.1:%d}
          timeouts: {drain: 2s}
          """
              .formatted(port, pki.serverCert, pki.serverKey, upstream.address(), adminPort));
      List<OpensslSession> clients =
          List.of(
              new OpensslSession(dir.resolve("tls13.sess"), "-tls1_3", true),
              new OpensslSession(dir.resolve("tls12.sess"), "-tls1_2", true));
      try (ChildProxy old = ChildProxy.run(file)) {
        for (OpensslSession client : clients) {
          assertThat(client.first(front).reused()).isFalse();
          assertThat(client.again(front).reused()).as(client.protocol() + " before").isTrue();
        }
        old.signal("HUP");
        old.awaitOutput("configuration reloaded (SIGHUP)");
        for (OpensslSession client : clients) {
          assertThat(client.again(front).reused())
              .as(client.protocol() + " after SIGHUP of an unchanged configuration")
              .isTrue();
        }
        Map<String, Double> metrics =
            new AdminClient(new InetSocketAddress("127.0.0.1", adminPort)).scrape();
        assertThat(metrics)
            .containsEntry(
                AdminClient.series(
                    "sluice_tls_handshakes_total", "listener", "front", "kind", "full"),
                2.0)
            .containsEntry(
                AdminClient.series(
                    "sluice_tls_handshakes_total", "listener", "front", "kind", "resumed"),
                4.0);

        // An upgrade: a second process on the same port (the admin port is not shared), then the
        // first one leaves.
        Path upgraded = dir.resolve("upgraded.yaml");
        Files.writeString(
            upgraded,
            Files.readString(file).replace("admin: {address: 127.0.0.1:" + adminPort + "}\n", ""));
        try (ChildProxy next = ChildProxy.run(upgraded)) {
          old.signal("TERM");
          assertThat(old.awaitExit()).isIn(0, 143);
          for (OpensslSession client : clients) {
            assertThat(client.again(front).reused())
                .as(client.protocol() + " in a new process: its ticket keys are its own")
                .isFalse();
          }
          assertThat(next.isAlive()).isTrue();
        }
      }
    }
  }
}
