package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.OpensslSession;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import dev.sluice.tls.TlsEngineKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tls.sessionTickets: {keyFile: FILE}} (OpenSSL engine only), as users check it with {@code
 * openssl s_client -sess_out / -sess_in}: a ticket resumes across SIGHUP, in another process given
 * the same file (an upgrade over SO_REUSEPORT), after the file is rotated by appending a key, and
 * not once the listener's certificate changed.
 */
class TicketKeyFileTest {
  @TempDir Path dir;

  private static final SecureRandom RANDOM = new SecureRandom();

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private static String key() {
    byte[] key = new byte[80];
    RANDOM.nextBytes(key);
    return Base64.getEncoder().encodeToString(key) + "\n";
  }

  @Test
  void ticketsResumeAcrossSighupAnUpgradeAndARotationButNotACertificateChange() throws Exception {
    assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine only").isNull();
    assumeThat(TlsEngineKind.defaultKind())
        .as("a key file needs OpenSSL: not with the JDK as the default engine")
        .isNotEqualTo(TlsEngineKind.JDK);
    TestPki pki = TestPki.get();
    int port = freePort();
    InetSocketAddress front = new InetSocketAddress("127.0.0.1", port);
    Path cert = Files.copy(pki.serverCert, dir.resolve("listener.pem"));
    Path certKey = Files.copy(pki.serverKey, dir.resolve("listener.key"));
    Path keys = dir.resolve("ticket-keys");
    Files.writeString(keys, key() + key() + key());
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: front
              address: 127.0.0.1:%d
              cluster: c0
              tls: {certificates: [{cert: "%s", key: "%s"}], sessionTickets: {keyFile: "%s"}}
          clusters:
            - {name: c0, upstreams: [{address: "%s"}]}
          timeouts: {drain: 2s}
          """
              .formatted(port, cert, certKey, keys, upstream.address()));
      List<OpensslSession> clients =
          List.of(
              new OpensslSession(dir.resolve("tls13.sess"), "-tls1_3", true),
              new OpensslSession(dir.resolve("tls12.sess"), "-tls1_2", true));
      try (ChildProxy old = ChildProxy.run(file)) {
        for (OpensslSession client : clients) {
          assertThat(client.first(front).reused()).isFalse();
          assertThat(client.again(front).reused()).as(client.protocol()).isTrue();
        }
        old.signal("HUP");
        old.awaitOutput("configuration reloaded (SIGHUP)");
        for (OpensslSession client : clients) {
          assertThat(client.again(front).reused()).as(client.protocol() + " after SIGHUP").isTrue();
        }
        // An upgrade: a second process on the same port with the same file; the first leaves.
        try (ChildProxy next = ChildProxy.run(file)) {
          old.signal("TERM");
          assertThat(old.awaitExit()).isIn(0, 143);
          for (OpensslSession client : clients) {
            assertThat(client.again(front).reused())
                .as(client.protocol() + " in a new process sharing the key file")
                .isTrue();
          }
          // Tickets made before any rotation, under the file's penultimate key (the second).
          List<OpensslSession> unrotated = new java.util.ArrayList<>();
          for (OpensslSession client : clients) {
            Path copy = dir.resolve("unrotated" + client.protocol());
            Files.copy(client.file(), copy);
            unrotated.add(new OpensslSession(copy, client.protocol(), true));
          }
          // Rotated: a new key appended, so the one that encrypted these tickets only decrypts.
          Files.writeString(keys, Files.readString(keys) + key());
          next.signal("HUP");
          next.awaitOutput("configuration reloaded (SIGHUP)");
          for (OpensslSession client : clients) {
            assertThat(client.again(front).reused())
                .as(client.protocol() + " after a rotation")
                .isTrue();
          }
          // Rotated again: the second key has left the last three, so its tickets no longer resume
          // (they would if the last key encrypted, since the third would then have).
          Files.writeString(keys, Files.readString(keys) + key());
          long rotated = reloads(next);
          next.signal("HUP");
          dev.sluice.testing.Await.until(
              () -> reloads(next) > rotated, () -> "a second rotation:\n" + next.output());
          for (OpensslSession stale : unrotated) {
            assertThat(stale.again(front).reused())
                .as(stale.protocol() + " ticket of a key rotated out")
                .isFalse();
          }
          // Another certificate at the same paths: the same keys, but no session resumes.
          Files.copy(pki.otherCert, cert, StandardCopyOption.REPLACE_EXISTING);
          Files.copy(pki.otherKey, certKey, StandardCopyOption.REPLACE_EXISTING);
          long reloads = reloads(next);
          next.signal("HUP");
          dev.sluice.testing.Await.until(
              () -> reloads(next) > reloads, () -> "a third reload:\n" + next.output());
          for (OpensslSession client : clients) {
            OpensslSession.Outcome after = client.again(front);
            assertThat(after.reused())
                .as(client.protocol() + " after a certificate change")
                .isFalse();
            assertThat(after.output()).contains("CN = other.test");
          }
        }
      }
    }
  }

  @Test
  void aSessionFromAListenerWithoutClientAuthDoesNotResumeOnOneThatRequiresIt() throws Exception {
    assumeThat(TlsEngineKind.openSslUnavailableReason()).as("OpenSSL engine only").isNull();
    assumeThat(TlsEngineKind.defaultKind())
        .as("a key file needs OpenSSL: not with the JDK as the default engine")
        .isNotEqualTo(TlsEngineKind.JDK);
    TestPki pki = TestPki.get();
    int open = freePort();
    int twin = freePort();
    int mtls = freePort();
    Path keys = dir.resolve("ticket-keys");
    Files.writeString(keys, key() + key() + key());
    String tls =
        "certificates: [{cert: \"%s\", key: \"%s\"}], sessionTickets: {keyFile: \"%s\"}"
            .formatted(pki.serverCert, pki.serverKey, keys);
    try (OpensslSession.LineEcho upstream = new OpensslSession.LineEcho()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - {name: open, address: 127.0.0.1:%d, cluster: c0, tls: {%s}}
            - {name: twin, address: 127.0.0.1:%d, cluster: c0, tls: {%s}}
            - name: mtls
              address: 127.0.0.1:%d
              cluster: c0
              tls: {%s, clientAuth: required, clientCa: "%s"}
          clusters:
            - {name: c0, upstreams: [{address: "%s"}]}
          timeouts: {drain: 2s}
          """
              .formatted(open, tls, twin, tls, mtls, tls, pki.caCert, upstream.address()));
      try (ChildProxy proxy = ChildProxy.run(file)) {
        for (String protocol : List.of("-tls1_3", "-tls1_2")) {
          OpensslSession client = new OpensslSession(dir.resolve("s" + protocol), protocol, true);
          assertThat(client.first(new InetSocketAddress("127.0.0.1", open)).reused()).isFalse();
          // The keys are shared: a listener with the same settings takes the ticket.
          assertThat(client.again(new InetSocketAddress("127.0.0.1", twin)).reused())
              .as(protocol + " on a listener with the same settings")
              .isTrue();
          String output = client.attemptAgain(new InetSocketAddress("127.0.0.1", mtls));
          assertThat(output)
              .as(protocol + " on the mTLS listener; proxy:\n" + proxy.output())
              .doesNotContain("Reused, TLS")
              .doesNotContain("ping");
        }
      }
    }
  }

  private static long reloads(ChildProxy child) {
    return child.output().stream().filter(line -> line.contains("configuration reloaded")).count();
  }
}
