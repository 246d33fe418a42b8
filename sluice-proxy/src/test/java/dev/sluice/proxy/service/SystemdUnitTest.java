package dev.sluice.proxy.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.NotifyReceiver;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped unit, deploy/systemd/sluice.service, checked with systemd's own tools, which work
 * without systemd running: {@code systemd-analyze verify} and {@code security --offline}, {@code
 * systemd-sysusers --root}; and its system call filter held against every call a traced proxy
 * makes.
 */
class SystemdUnitTest {
  private static final Path UNIT = Path.of("..", "deploy", "systemd", "sluice.service");
  private static final Path SYSUSERS = Path.of("..", "deploy", "systemd", "sluice.sysusers");
  private static final String EXEC_START =
      "/opt/sluice/bin/sluice run --config /etc/sluice/sluice.yaml";

  @TempDir Path dir;

  private record Outcome(int exit, String output) {}

  private static Outcome run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish: " + output);
    }
    return new Outcome(p.exitValue(), output);
  }

  /**
   * The unit with its ExecStart naming an executable that exists here (verify checks that it does),
   * under a name systemd accepts.
   */
  private Path verifiableCopy(String extraServiceLines) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin")).resolve("sluice");
    Files.writeString(bin, "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
    String unit = Files.readString(UNIT);
    assertThat(unit).contains("ExecStart=" + EXEC_START + "\n");
    unit = unit.replace("ExecStart=/opt/sluice/bin/sluice ", "ExecStart=" + bin + " ");
    unit = unit.replace("[Install]", extraServiceLines + "\n[Install]");
    return Files.writeString(dir.resolve("sluice.service"), unit);
  }

  /** Key to values, across the unit's sections (a key may be given more than once). */
  private static Map<String, List<String>> keys() throws IOException {
    Map<String, List<String>> keys = new LinkedHashMap<>();
    for (String line : Files.readAllLines(UNIT)) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#") || l.startsWith("[")) {
        continue;
      }
      int eq = l.indexOf('=');
      keys.computeIfAbsent(l.substring(0, eq), k -> new ArrayList<>()).add(l.substring(eq + 1));
    }
    return keys;
  }

  @Test
  void systemdAnalyzeVerifyHasNothingToSay() throws Exception {
    Outcome verify = run(List.of("systemd-analyze", "verify", verifiableCopy("").toString()));
    assertThat(verify.output()).isEmpty();
    assertThat(verify.exit()).isZero();

    // It would say so: verify prints what it ignores, and still exits 0.
    Outcome bad =
        run(List.of("systemd-analyze", "verify", verifiableCopy("TimeoutStopSec=soon").toString()));
    assertThat(bad.output()).contains("Failed to parse");
  }

  @Test
  void itsExposureIsAtMostTwoOfTen() throws Exception {
    Path copy = verifiableCopy("");
    Outcome security =
        run(
            List.of(
                "systemd-analyze", "security", "--offline=yes", "--threshold=20", copy.toString()));
    Matcher overall = Pattern.compile("Overall exposure level for .*").matcher(security.output());
    assertThat(overall.find()).as(security.output()).isTrue();
    assertThat(security.exit()).as(overall.group()).isZero();
  }

  @Test
  void theUnitRunsTheProxyAsItIsBuilt() throws Exception {
    Map<String, List<String>> keys = keys();
    assertThat(keys.get("Type")).containsExactly("notify");
    assertThat(keys.get("ExecStart")).containsExactly(EXEC_START);
    assertThat(keys.get("ExecReload")).containsExactly("kill -HUP $MAINPID");
    assertThat(keys.get("Restart")).containsExactly("on-failure");
    // The exit after SIGTERM's drain (SystemdNotifyTest sees 143) must not count as a failure.
    assertThat(keys.get("SuccessExitStatus")).containsExactly("143");
    assertThat(keys).containsKeys("WatchdogSec", "LimitNOFILE");
    // Stopping must outlast the default drain, or systemd kills what is still draining.
    Duration drain =
        ConfigReader.read(
                """
                listeners: [{name: a, address: 127.0.0.1:1, cluster: c}]
                clusters: [{name: c, upstreams: [{address: 127.0.0.1:2}]}]
                """,
                "minimal",
                dir)
            .drainTimeout();
    assertThat(Units.duration(keys.get("TimeoutStopSec").getFirst())).isGreaterThan(drain);
    assertThat(keys.get("AmbientCapabilities")).containsExactly("CAP_NET_BIND_SERVICE");
    assertThat(keys.get("CapabilityBoundingSet")).containsExactly("CAP_NET_BIND_SERVICE");
    assertThat(keys.get("RestrictAddressFamilies")).containsExactly("AF_INET AF_INET6 AF_UNIX");
    for (String on :
        List.of(
            "NoNewPrivileges",
            "ProtectHome",
            "PrivateTmp",
            "PrivateDevices",
            "ProtectKernelTunables",
            "ProtectKernelModules",
            "ProtectKernelLogs",
            "ProtectControlGroups",
            "RestrictNamespaces",
            "LockPersonality")) {
      assertThat(keys.get(on)).as(on).containsExactly("yes");
    }
    assertThat(keys.get("ProtectSystem")).containsExactly("strict");
    assertThat(keys.get("SystemCallArchitectures")).containsExactly("native");
    assertThat(keys.get("SystemCallFilter")).contains("@system-service");
    assertThat(keys)
        .as("the JIT writes code and runs it")
        .doesNotContainKey("MemoryDenyWriteExecute");
  }

  @Test
  void sysusersCreatesTheUnitsUserWithoutALogin() throws Exception {
    Path root = Files.createDirectories(dir.resolve("root").resolve("etc")).getParent();
    Outcome sysusers =
        run(
            List.of(
                "systemd-sysusers",
                "--root=" + root,
                SYSUSERS.toAbsolutePath().normalize().toString()));
    assertThat(sysusers.exit()).as(sysusers.output()).isZero();
    String user = keys().get("User").getFirst();
    String group = keys().get("Group").getFirst();
    assertThat(Files.readAllLines(root.resolve("etc/passwd")))
        .anyMatch(line -> line.startsWith(user + ":") && line.endsWith(":/usr/sbin/nologin"));
    assertThat(Files.readAllLines(root.resolve("etc/group")))
        .anyMatch(line -> line.startsWith(group + ":"));
  }

  @Test
  void everySystemCallOfAProxyAtWorkPassesTheUnitsFilter() throws Exception {
    TestPki pki = TestPki.get();
    int plain = freePort();
    int secure = freePort();
    int admin = freePort();
    Path unix = dir.resolve("front.sock");
    Path trace = dir.resolve("trace");
    // As systemd runs it: telling the manager, feeding the watchdog.
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        NotifyReceiver manager = NotifyReceiver.bind(dir.resolve("notify"))) {
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(
          config,
          """
          listeners:
            - {name: plain, address: 127.0.0.1:%d, cluster: up}
            - {name: local, address: "unix:%s", cluster: up}
            - name: secure
              address: 127.0.0.1:%d
              cluster: up
              tls: {certificates: [{cert: "%s", key: "%s"}]}
          clusters:
            - {name: up, upstreams: [{address: "%s"}]}
          admin: {address: 127.0.0.1:%d}
          accessLog: {path: access.log}
          timeouts: {drain: 1s}
          """
              .formatted(
                  plain,
                  unix,
                  secure,
                  pki.serverCert,
                  pki.serverKey,
                  Endpoint.format(echo.address()),
                  admin));
      try (ChildProxy child =
          ChildProxy.startWith(
              List.of("strace", "-f", "-qq", "-o", trace.toString()),
              shippedJvmOptions(),
              Map.of("NOTIFY_SOCKET", manager.address(), "WATCHDOG_USEC", "1000000"),
              "run",
              "--config",
              config.toString())) {
        Await.until(
            () -> !child.isAlive() || child.output().stream().anyMatch(l -> l.contains("Ctrl-C")),
            () -> "the traced proxy to start:\n" + String.join("\n", child.output()));
        Assumptions.assumeTrue(
            child.isAlive(),
            () -> "strace cannot trace here:\n" + String.join("\n", child.output()));
        long java =
            ProcessHandle.of(child.pid()).orElseThrow().children().findFirst().orElseThrow().pid();

        assertThat(manager.next()).startsWith("READY=1");
        echoPlain(plain);
        echoUnix(unix);
        echoTls(pki, secure);
        HttpClient http = HttpClient.newHttpClient();
        for (String page : List.of("/metrics", "/live", "/ready", "/dump")) {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + page)).build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).as(page).isEqualTo(200);
        }
        signal(java, "HUP");
        child.awaitOutput("configuration reloaded (SIGHUP)");
        signal(java, "USR1");
        child.awaitOutput("access log reopened");
        signal(java, "TERM");
        assertThat(child.awaitExit()).isIn(0, 143);
        assertThat(child.output()).anyMatch(l -> l.contains("stopped"));
      }
    }
    Set<String> used = new TreeSet<>();
    Matcher call =
        Pattern.compile("(?m)^\\d+\\s+(?:<\\.\\.\\. )?([a-z0-9_]+)(?:\\(| resumed>)")
            .matcher(Files.readString(trace));
    while (call.find()) {
      used.add(call.group(1));
    }
    assertThat(used).as("the trace").contains("execve", "accept", "epoll_wait", "sendto");

    Set<String> allowed = new TreeSet<>();
    Set<String> denied = new TreeSet<>();
    for (String filter : keys().get("SystemCallFilter")) {
      boolean deny = filter.startsWith("~");
      for (String item : filter.replaceFirst("^~", "").split("\\s+")) {
        (deny ? denied : allowed).addAll(expand(item));
      }
    }
    assertThat(used).as("calls outside SystemCallFilter").isSubsetOf(allowed);
    assertThat(used).as("calls the filter denies").doesNotContainAnyElementsOf(denied);
  }

  /** A system call filter group, as systemd defines it, down to the calls. */
  private static Set<String> expand(String item) throws IOException, InterruptedException {
    if (!item.startsWith("@")) {
      return Set.of(item);
    }
    Outcome listed = run(List.of("systemd-analyze", "syscall-filter", "--no-pager", item));
    assertThat(listed.exit()).as(listed.output()).isZero();
    Set<String> calls = new TreeSet<>();
    List<String> lines = listed.output().lines().map(String::strip).toList();
    for (String line : lines.subList(1, lines.size())) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        calls.addAll(expand(line));
      }
    }
    return calls;
  }

  /** The flags ./sluice runs the proxy with. */
  private static List<String> shippedJvmOptions() throws IOException {
    List<String> flags = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("jvm.options"))) {
      String flag = line.replaceFirst("#.*", "").strip();
      if (!flag.isEmpty()) {
        flags.add(flag);
      }
    }
    return flags;
  }

  private static void signal(long pid, String name) throws Exception {
    Outcome kill = run(List.of("kill", "-" + name, Long.toString(pid)));
    assertThat(kill.exit()).as(kill.output()).isZero();
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private static void echoPlain(int port) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
      assertThat(s.getInputStream().readNBytes(4)).asString().isEqualTo("ping");
    }
  }

  private static void echoUnix(Path socket) throws IOException {
    try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      c.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));
      ByteBuffer back = ByteBuffer.allocate(4);
      while (back.hasRemaining() && c.read(back) >= 0) {}
      assertThat(back.array()).asString().isEqualTo("ping");
    }
  }

  private static void echoTls(TestPki pki, int port) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, pki.caTrust().trustManagers(), null);
    try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      SSLParameters p = s.getSSLParameters();
      p.setServerNames(List.of(new SNIHostName("localhost")));
      s.setSSLParameters(p);
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      assertThat(s.getInputStream().readNBytes(4)).asString().isEqualTo("ping");
    }
  }
}
