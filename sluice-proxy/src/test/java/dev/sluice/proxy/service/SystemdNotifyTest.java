package dev.sluice.proxy.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.NotifyReceiver;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run} as systemd runs it ({@code Type=notify}): a real process, and a real Unix
 * datagram socket in the manager's place.
 */
class SystemdNotifyTest {
  private static final Pattern FRONT = Pattern.compile("front\\s+127\\.0\\.0\\.1:(\\d+)");

  @TempDir Path dir;
  private EchoServer echo;
  private Path config;

  @BeforeEach
  void upstream() throws IOException {
    echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
    config = dir.resolve("sluice.yaml");
    Files.writeString(config, config("timeouts: {drain: 1s}"));
  }

  @AfterEach
  void stopUpstream() {
    echo.close();
  }

  private String config(String extra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: up
        clusters:
          - name: up
            upstreams: [{address: "%s"}]
        %s
        """
        .formatted(Endpoint.format(echo.address()), extra);
  }

  private ChildProxy start(Map<String, String> environment) throws IOException {
    return ChildProxy.startWith(
        List.of(), List.of(), environment, "run", "--config", config.toString());
  }

  @Test
  void readyOnceTheListenerAcceptsThenReloadingReadyAroundEachReloadAndStoppingAtTheDrain()
      throws Exception {
    try (NotifyReceiver manager = NotifyReceiver.bind(dir.resolve("notify"));
        ChildProxy child = start(Map.of("NOTIFY_SOCKET", manager.address()))) {
      String ready = manager.next();
      assertThat(ready).startsWith("READY=1\nSTATUS=listening on front 127.0.0.1:");
      // READY=1 says the listener is bound: it accepts now, whatever the process does next.
      int port = portIn(ready);
      echoOnce(port);

      long before = System.nanoTime() / 1_000; // CLOCK_MONOTONIC in HotSpot on Linux
      child.signal("HUP");
      String reloading = manager.next();
      long after = System.nanoTime() / 1_000 + 1;
      assertThat(reloading).startsWith("RELOADING=1\nMONOTONIC_USEC=");
      assertThat(monotonicUsec(reloading)).isBetween(before, after);
      assertThat(manager.next()).isEqualTo(ready);
      child.awaitOutput("configuration reloaded (SIGHUP)");

      // The file is watched: an edit reloads it as SIGHUP does, and is told the same way.
      Files.writeString(config, "listeners: [{name: front, address: nowhere}]\n");
      assertThat(manager.next()).startsWith("RELOADING=1\nMONOTONIC_USEC=");
      String afterFailure = manager.next();
      assertThat(afterFailure)
          .startsWith("READY=1\nSTATUS=reload failed (")
          .contains(
              "still running the previous configuration, listening on front 127.0.0.1:" + port);
      assertThat(afterFailure.lines()).as("one STATUS line").hasSize(2);
      child.awaitOutput("configuration rejected (a watched file changed)");
      echoOnce(port);

      child.signal("TERM");
      assertThat(manager.next())
          .isEqualTo("STOPPING=1\nSTATUS=draining open connections for up to 1s");
      assertThat(child.awaitExit()).isIn(0, 143);
      assertThat(manager.queued()).as("nothing after STOPPING=1").isNull();
    }
  }

  @Test
  void anAbstractNameIsToldAndTheWatchdogBeatsWhenItIsOurs() throws Exception {
    String name = "sluice-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    try (NotifyReceiver manager = NotifyReceiver.bindAbstract(name);
        ChildProxy child = start(Map.of("NOTIFY_SOCKET", "@" + name, "WATCHDOG_USEC", "2000000"))) {
      assertThat(manager.next()).startsWith("READY=1\nSTATUS=listening on front");
      // The first beat right away, then one a second (half of WATCHDOG_USEC).
      assertThat(manager.next()).isEqualTo("WATCHDOG=1");
      assertThat(manager.next()).isEqualTo("WATCHDOG=1");
      child.awaitOutput("watchdog: telling the service manager every 1000 ms");
      child.signal("TERM");
      assertThat(manager.nextBesidesWatchdog()).startsWith("STOPPING=1\n");
      assertThat(child.awaitExit()).isIn(0, 143);
    }
  }

  @Test
  void aWatchdogForAnotherPidIsNotOurs() throws Exception {
    try (NotifyReceiver manager = NotifyReceiver.bind(dir.resolve("notify"));
        ChildProxy child =
            start(
                Map.of(
                    "NOTIFY_SOCKET", manager.address(),
                    "WATCHDOG_USEC", "2000000",
                    "WATCHDOG_PID", "1"))) {
      assertThat(manager.next()).startsWith("READY=1\n");
      // A first beat would have been sent before the banner, synchronously after READY=1.
      child.awaitOutput("Sluice proxy running");
      child.signal("TERM");
      assertThat(manager.next()).startsWith("STOPPING=1\n");
      assertThat(child.awaitExit()).isIn(0, 143);
      assertThat(child.output()).noneMatch(line -> line.contains("watchdog"));
    }
  }

  @Test
  void withoutNotifySocketNothingIsSentAndNothingIsSaid() throws Exception {
    try (ChildProxy child = start(Map.of())) {
      child.awaitOutput("Sluice proxy running");
      child.signal("HUP");
      child.awaitOutput("configuration reloaded (SIGHUP)");
      child.signal("TERM");
      assertThat(child.awaitExit()).isIn(0, 143);
      assertThat(child.output())
          .noneMatch(line -> line.contains("NOTIFY_SOCKET") || line.contains("service manager"));
    }
  }

  @Test
  void aSocketThatDoesNotExistIsOneWarningAndTheProxyRuns() throws Exception {
    Path absent = dir.resolve("no-such-dir").resolve("notify");
    try (ChildProxy child = start(Map.of("NOTIFY_SOCKET", absent.toString()))) {
      child.awaitOutput("Ctrl-C or SIGTERM"); // the banner's last line: its listeners are printed
      echoOnce(portIn(String.join("\n", child.output())));
      child.signal("HUP"); // two more messages that cannot be sent
      child.awaitOutput("configuration reloaded (SIGHUP)");
      child.signal("TERM"); // and one more
      assertThat(child.awaitExit()).isIn(0, 143);
      List<String> warnings =
          child.output().stream().filter(line -> line.contains("cannot notify")).toList();
      assertThat(warnings).hasSize(1);
      assertThat(warnings.getFirst())
          .contains("WARN")
          .contains("NOTIFY_SOCKET=" + absent)
          .contains("No such file or directory");
    }
  }

  @Test
  void aSocketPathTooLongForSunPathIsOneClearLine() throws Exception {
    String tooLong = dir.resolve("d".repeat(120)).toString();
    try (ChildProxy child = start(Map.of("NOTIFY_SOCKET", tooLong))) {
      child.awaitOutput("Sluice proxy running");
      child.signal("TERM");
      assertThat(child.awaitExit()).isIn(0, 143);
      assertThat(child.output().stream().filter(line -> line.contains("NOTIFY_SOCKET")).toList())
          .singleElement()
          .asString()
          .contains("bytes long, more than a Unix socket address holds (107 bytes)");
    }
  }

  private static int portIn(String text) {
    Matcher m = FRONT.matcher(text);
    assertThat(m.find()).as("a bound address for front in: %s", text).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static long monotonicUsec(String message) {
    Matcher m = Pattern.compile("MONOTONIC_USEC=(\\d+)").matcher(message);
    assertThat(m.find()).as(message).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static void echoOnce(int port) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write("ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(s.getInputStream().readNBytes(4)).asString().isEqualTo("ping");
    }
  }
}
