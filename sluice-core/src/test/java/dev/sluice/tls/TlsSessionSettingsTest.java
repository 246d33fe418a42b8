package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLSessionContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server's session settings, read back and as a client sees them, on the engine under test. */
class TlsSessionSettingsTest extends TlsTestBase {
  @TempDir Path dir;

  @Test
  void sizesAndTimeoutsReadBackAsSetAndZeroIsNoLimit() throws Exception {
    SSLSessionContext sessions = TlsServer.create(serverConfig()).sessions();
    sessions.setSessionTimeout(3600);
    assertThat(sessions.getSessionTimeout()).isEqualTo(3600);
    // On BoringSSL "no limit" is held as a uint32 above Integer.MAX_VALUE: it read back negative.
    sessions.setSessionTimeout(0);
    assertThat(sessions.getSessionTimeout()).as("0: no limit").isZero();
    sessions.setSessionCacheSize(10);
    assertThat(sessions.getSessionCacheSize()).isEqualTo(10);
  }

  /**
   * RFC 8446, section 4.6.1: a ticket's lifetime is at most 7 days, and clients drop one that
   * announces more. BoringSSL sends a TLS 1.3 session's timeout uncapped, which was 100 years when
   * no limit was set.
   */
  @Test
  void aTls13TicketWithoutATimeoutAnnouncesAtMostSevenDays() throws Exception {
    assumeTrue(engine() == TlsEngineKind.OPENSSL, "the JDK engine's tickets are the JDK's");
    TestPki.requireTool("openssl", "version");
    TlsServer server = TlsServer.create(serverConfig());
    server.sessions().setSessionTimeout(0);
    Listener listener =
        server.listen(group(), LOOPBACK, SocketOptions.defaults(), TlsInteropTest.PingPong::new);
    try {
      Path session = dir.resolve("session");
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      run(
          List.of(
              "openssl",
              "s_client",
              "-connect",
              "127.0.0.1:" + port,
              "-tls1_3",
              "-CAfile",
              pki.caCert.toString(),
              "-ign_eof",
              "-sess_out",
              session.toString()),
          "ping\n");
      String text =
          run(List.of("openssl", "sess_id", "-in", session.toString(), "-noout", "-text"), "");
      Matcher hint = Pattern.compile("lifetime hint: (\\d+) \\(seconds\\)").matcher(text);
      assertThat(hint.find()).as("a lifetime hint in:\n%s", text).isTrue();
      assertThat(Long.parseLong(hint.group(1))).isBetween(1L, 7L * 24 * 3600);
    } finally {
      listener.close();
    }
  }

  private static String run(List<String> command, String input) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(input.getBytes(StandardCharsets.US_ASCII));
    }
    byte[] output = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
    String text = new String(output, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("%s:\n%s", command, text).isZero();
    return text;
  }
}
