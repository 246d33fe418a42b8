package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A session is resumed only under the server name it was made for (RFC 6066, section 3: a server
 * "MUST NOT accept the request to resume the session if the server_name extension contains a
 * different name"), on both engines and both protocol versions: a client that offers the session of
 * one name with another gets a full handshake with the other name's certificate, and the connection
 * reports the name the client sent. OpenSSL alone would resume a TLS 1.2 session under another name
 * and report the session's name (SSL_get_servername), so a proxy routed and logged the connection
 * as the first name; the clients here are {@code openssl s_client -sess_out / -sess_in}, as users
 * check resumption.
 */
class TlsSniResumptionTest extends TlsTestBase {
  private static final Pattern SUMMARY =
      Pattern.compile("^(New|Reused), (TLSv[0-9.]+), Cipher is", Pattern.MULTILINE);

  @TempDir Path dir;

  /** What s_client showed, and what the server saw of the same connection. */
  private record Outcome(
      boolean reused, String clientSawSubject, String serverName, String serverCertificate) {}

  /**
   * @param mode {@code -tls1_2} (resumed by ticket), {@code -tls1_2 -no_ticket} (by session id,
   *     from the server's cache) or {@code -tls1_3} (by a PSK ticket)
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-tls1_2", "-tls1_2 -no_ticket", "-tls1_3"})
  void aSessionResumesOnlyUnderTheNameItWasMadeFor(String mode) throws Exception {
    TestPki.requireTool("openssl", "version");
    EventLoopGroup group = group();
    KeyMaterial other = KeyMaterial.fromPem(pki.otherCert, pki.otherKey);
    ConcurrentLinkedDeque<TlsInteropTest.PingPong> accepted = new ConcurrentLinkedDeque<>();
    Listener listener =
        listen(
            group,
            serverConfig().withServerName("other.test", other).withServerName("*.wild.test", other),
            () -> {
              TlsInteropTest.PingPong handler = new TlsInteropTest.PingPong();
              accepted.add(handler);
              return handler;
            });
    Path session = dir.resolve("session");
    List<String> protocol = List.of(mode.split(" "));

    Outcome first = run(listener, accepted, protocol, "localhost", "-sess_out", session);
    assertThat(first.reused()).isFalse();
    assertThat(first.serverName()).isEqualTo("localhost");
    // The same name resumes: the session is good, so what follows tests the name alone.
    Outcome same = run(listener, accepted, protocol, "localhost", "-sess_in", session);
    assertThat(same.reused()).as("the same name resumes").isTrue();
    assertThat(same.serverName()).isEqualTo("localhost");

    Outcome otherName = run(listener, accepted, protocol, "other.test", "-sess_in", session);
    assertThat(otherName.reused()).as("localhost's session offered for other.test").isFalse();
    assertThat(otherName.clientSawSubject()).isEqualTo("CN = other.test");
    assertThat(otherName.serverCertificate()).isEqualTo("CN=other.test");
    assertThat(otherName.serverName()).isEqualTo("other.test");

    // Another name on the same certificate does not resume either: the rule is the name.
    Outcome made = run(listener, accepted, protocol, "other.test", "-sess_out", session);
    assertThat(made.reused()).isFalse();
    Outcome sameCertificate = run(listener, accepted, protocol, "a.wild.test", "-sess_in", session);
    assertThat(sameCertificate.reused())
        .as("other.test's session offered for a.wild.test")
        .isFalse();
    assertThat(sameCertificate.serverName()).isEqualTo("a.wild.test");
    assertThat(sameCertificate.serverCertificate()).isEqualTo("CN=other.test");
  }

  private Outcome run(
      Listener listener,
      ConcurrentLinkedDeque<TlsInteropTest.PingPong> accepted,
      List<String> protocol,
      String serverName,
      String sessionOption,
      Path session)
      throws Exception {
    if (sessionOption.equals("-sess_out")) {
      Files.deleteIfExists(session);
    }
    int before = accepted.size();
    long started = System.currentTimeMillis();
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort(),
                "-servername",
                serverName,
                "-CAfile",
                pki.caCert.toString(),
                "-verify_return_error",
                "-ign_eof",
                sessionOption,
                session.toString()));
    command.addAll(protocol);
    String output = runToEnd(command);
    Matcher summary = SUMMARY.matcher(output);
    assertThat(summary.find()).as("s_client's summary in:\n%s", output).isTrue();
    assertThat(output).as("the server's answer").contains("pong");
    assertThat(accepted.size()).isEqualTo(before + 1);
    TlsConnection connection = await(accepted.getLast().tlsActive());
    Matcher subject = Pattern.compile("(?m)^subject=(.*)$").matcher(output);
    X509Certificate presented = (X509Certificate) connection.session().getLocalCertificates()[0];
    boolean reused = summary.group(1).equals("Reused");
    assertThat(Resumption.resumed(connection.session(), started))
        .as("what the server says of the resumption s_client reports")
        .isEqualTo(reused);
    if (engine() == TlsEngineKind.OPENSSL) {
      // The engine's flag, whatever the clock says: BoringSSL restamps a resumed TLS 1.3 session
      // with the second it resumed in, which a time comparison would take for a new one.
      assertThat(Resumption.resumed(connection.session(), 0)).isEqualTo(reused);
      assertThat(Resumption.resumed(connection.session(), Long.MAX_VALUE)).isEqualTo(reused);
    }
    return new Outcome(
        reused,
        subject.find() ? subject.group(1).trim() : null,
        requestedServerName(connection),
        presented.getSubjectX500Principal().getName());
  }

  private static String requestedServerName(TlsConnection connection) {
    if (connection.session() instanceof ExtendedSSLSession extended) {
      for (SNIServerName name : extended.getRequestedServerNames()) {
        if (name instanceof SNIHostName host) {
          return host.getAsciiName();
        }
      }
    }
    return null;
  }

  /** Runs s_client with "ping" on its input; the server answers and closes, which ends it. */
  private static String runToEnd(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write("ping\n".getBytes(StandardCharsets.US_ASCII));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    p.getInputStream().transferTo(out);
                  } catch (IOException ended) {
                    // the process is gone
                  }
                });
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish: " + out);
    }
    reader.join();
    String output = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("%s:\n%s", command, output).isZero();
    return output;
  }
}
