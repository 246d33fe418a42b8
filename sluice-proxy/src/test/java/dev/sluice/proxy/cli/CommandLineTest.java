package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line as an operator uses it: {@code check} says what is wrong and exits non-zero;
 * {@code run} reloads on SIGHUP (under nohup too) and drains on SIGTERM, as a real process.
 */
class CommandLineTest {
  @TempDir Path dir;

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private static String config(int port, String upstream, String extra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:%d
            cluster: up
        clusters:
          - name: up
            upstreams: [{address: "%s"}]
        %s
        """
        .formatted(port, upstream, extra);
  }

  private record Outcome(int exit, String out, String err) {}

  private static Outcome execute(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }

  @Test
  void versionNamesTheReleaseItsCommitTheJdkTheTransportAndTheTlsEngine() {
    Outcome version = execute("--version");
    assertThat(version.exit()).isZero();
    // The build writes the project version and the commit; a build without git says "unknown".
    assertThat(version.out())
        .containsPattern(
            "sluice \\d+\\.\\d+\\.\\d+\\S* \\(commit ([0-9a-f]{10}(-dirty)?|unknown)\\)")
        .doesNotContain("${")
        .contains("jdk: " + Runtime.version())
        .contains("transport: " + dev.sluice.net.Transport.AUTO.resolve().id() + " (auto")

        // auto, resolved: OpenSSL where libssl.so.3 loads (as it does in this JVM, or not)
        .contains(
            "tls engine: "
                + (dev.sluice.tls.TlsEngineKind.openSslUnavailableReason() == null
                    ? "openssl (auto; "
                        + (dev.sluice.tls.openssl.OpenSsl.library()
                                == dev.sluice.tls.openssl.OpenSsl.Library.BORINGSSL
                            ? "BoringSSL"
                            : "OpenSSL 3")
                    : "jdk (auto; OpenSSL: "));
  }

  @Test
  void checkAcceptsAGoodFileAndListsEveryProblemOfABadOne() throws Exception {
    Path good = dir.resolve("good.yaml");
    Files.writeString(good, config(7000, "127.0.0.1:7001", ""));
    Outcome ok = execute("check", "--config", good.toString());
    assertThat(ok.exit()).isZero();
    assertThat(ok.out()).contains("ok (1 listeners, 1 clusters)");

    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        """
        listeners:
          - name: front
            address: 127.0.0.1:notaport
            cluster: missing
            colour: blue
        clusters:
          - name: up
            upstreams: [{address: "127.0.0.1:7001"}]
        timeouts: {idle: 0s}
        """);
    Outcome failed = execute("check", "--config", bad.toString());
    assertThat(failed.exit()).isEqualTo(2);
    assertThat(failed.err())
        .contains("4 problems")
        .contains("bad.yaml:3: listeners[0].address: '127.0.0.1:notaport' has no port number")
        .contains("bad.yaml:4: listeners[0].cluster: no cluster named 'missing' (clusters: up)")
        .contains("bad.yaml:5: listeners[0].colour: unknown field")
        .contains("bad.yaml:9: timeouts.idle: '0s': use none for no timeout");

    Outcome missing = execute("check", "--config", dir.resolve("nope.yaml").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("cannot read the file");
  }

  @Test
  void sigusr1ReopensTheAccessLogStatusPrintsTheTreeAndNativeMemoryIsExported() throws Exception {
    int port = freePort();
    int adminPort = freePort();
    try (EchoServer echo = EchoServer.start(new java.net.InetSocketAddress("127.0.0.1", 0))) {
      Path file = dir.resolve("sluice.yaml");
      Path log = dir.resolve("access.log");
      Path rotated = dir.resolve("access.log.1");
      Files.writeString(
          file,
          config(
              port,
              Endpoint.format(echo.address()),
              "accessLog: {path: access.log}\nadmin: {address: 127.0.0.1:" + adminPort + "}"));
      try (ChildProxy child = ChildProxy.run(file, "-XX:NativeMemoryTracking=summary")) {
        child.awaitOutput("Status page http://127.0.0.1:" + adminPort + "/");
        echoOnce(port);
        Await.until(() -> lineCount(log) == 1, () -> "the first access log line");
        Files.move(log, rotated);
        child.signal("USR1");
        child.awaitOutput("access log reopened");
        echoOnce(port);
        Await.until(() -> lineCount(log) == 1, () -> "a line in the reopened log");
        assertThat(lineCount(rotated)).isEqualTo(1);

        try (Socket held = new Socket("127.0.0.1", port)) {
          held.getOutputStream().write(new byte[77]);
          assertThat(held.getInputStream().readNBytes(77)).hasSize(77);
          Outcome status = execute("status", "--admin", "127.0.0.1:" + adminPort);
          assertThat(status.exit()).as(status.err()).isZero();
          assertThat(status.out())
              .startsWith("ready")
              .contains("forwarding age")
              .contains("read 77 B")
              .contains("front 127.0.0.1:" + port + ": 1 open, 3 accepted");
          Outcome byConfig = execute("status", "--config", file.toString(), "--pairs", "0");
          assertThat(byConfig.exit()).isZero();
          assertThat(byConfig.out()).doesNotContain("forwarding age").contains("1 more pairs");
        }

        var metrics =
            new dev.sluice.proxy.testing.AdminClient(
                    new java.net.InetSocketAddress("127.0.0.1", adminPort))
                .scrape();
        assertThat(metrics.get("sluice_jvm_native_memory_committed_bytes{category=\"Total\"}"))
            .isPositive();
        assertThat(metrics.get("sluice_jvm_native_memory_committed_bytes{category=\"Java Heap\"}"))
            .isPositive();
        child.signal("TERM");
        assertThat(child.awaitExit()).isIn(0, 143);
      }
      Outcome gone = execute("status", "--admin", "127.0.0.1:" + adminPort);
      assertThat(gone.exit()).isEqualTo(2);
      assertThat(gone.err()).contains("no admin listener answers on 127.0.0.1:" + adminPort);
    }
  }

  private static void echoOnce(int port) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write("ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.shutdownOutput();
      assertThat(s.getInputStream().readAllBytes()).hasSize(4);
    }
  }

  private static long lineCount(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void sighupReloadsTheFileAndSigtermDrainsThenStops() throws Exception {
    int port = freePort();
    try (ScriptedUpstream first = ScriptedUpstream.start();
        ScriptedUpstream second = ScriptedUpstream.start()) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(port, first.address(), "timeouts: {drain: 1s}"));
      try (ChildProxy child = ChildProxy.run(file)) {
        Socket held = new Socket("127.0.0.1", port);
        held.setSoTimeout((int) Await.PATIENCE.toMillis());
        held.getOutputStream().write('1');
        Socket heldServer = first.next();
        assertThat(heldServer.getInputStream().read()).isEqualTo('1');

        // Edit and SIGHUP: new connections go to the second upstream, the held one stays.
        Files.writeString(file, config(port, second.address(), "timeouts: {drain: 1s}"));
        child.signal("HUP");
        child.awaitOutput("configuration reloaded");
        try (Socket fresh = new Socket("127.0.0.1", port)) {
          fresh.getOutputStream().write('2');
          try (Socket freshServer = second.next()) {
            assertThat(freshServer.getInputStream().read()).isEqualTo('2');
          }
        }
        held.getOutputStream().write('3');
        assertThat(heldServer.getInputStream().read()).isEqualTo('3');

        // SIGTERM: no new connections, the held pair carries on until the drain ends.
        child.signal("TERM");
        child.awaitOutput("shutting down");
        Await.until(
            () -> {
              try {
                new Socket("127.0.0.1", port).close();
                return false;
              } catch (ConnectException expected) {
                return true;
              } catch (IOException other) {
                return false;
              }
            },
            () -> "new connections to be refused after SIGTERM");
        held.getOutputStream().write('4');
        assertThat(heldServer.getInputStream().read()).isEqualTo('4');
        assertThat(held.getInputStream().read()).as("closed when the drain ends").isEqualTo(-1);
        assertThat(child.awaitExit()).isIn(0, 143);
        // The held pair, and any probe above that connected before the listener was unbound.
        assertThat(child.output())
            .anyMatch(line -> line.matches(".*closing \\d+ pairs still open after the 1s drain"));
        heldServer.close();
        held.close();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
            .isInstanceOf(ConnectException.class);
      }
    }
  }

  @Test
  void underNohupSighupIsIgnoredAtStartAndStillReloads() throws Exception {
    // nohup starts the JVM with SIGHUP ignored, and HotSpot then keeps it ignored, silently.
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, config(0, "127.0.0.1:9", ""));
    try (ChildProxy child =
        ChildProxy.startUnder(List.of("nohup"), List.of(), "run", "--config", file.toString())) {
      child.awaitOutput("Sluice proxy running");
      assertThat(child.output())
          .anyMatch(line -> line.contains("SIGHUP was ignored when this process started"));
      child.signal("HUP");
      child.awaitOutput("configuration reloaded (SIGHUP)");
      assertThat(child.isAlive()).isTrue();
    }
  }

  @Test
  void aConfigurationThatCannotBindFailsTheStartWithTheAddress() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      taken.setReuseAddress(false);
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, config(taken.getLocalPort(), "127.0.0.1:9", ""));
      try (ChildProxy child = ChildProxy.start("run", "--config", file.toString())) {
        assertThat(child.awaitExit()).isEqualTo(1);
        assertThat(String.join("\n", child.output()))
            .contains("cannot start")
            .contains(String.valueOf(taken.getLocalPort()));
      }
    }
  }

  static InetSocketAddress loopback(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }
}
