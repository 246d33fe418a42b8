package dev.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The release archive, unpacked and run where no Java is installed. */
class ArchiveIT {
  @TempDir static Path unpackDir;
  static Unpacked archive;

  @BeforeAll
  static void unpack() throws Exception {
    archive = Unpacked.into(unpackDir);
  }

  @Test
  void holdsTheLauncherTheRuntimeTheJarsTheConfigurationAndTheUnit() throws Exception {
    assertThat(Files.getPosixFilePermissions(archive.resolve("bin/sluice")))
        .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
    assertThat(archive.resolve("runtime/bin/java")).isExecutable();
    assertThat(archive.resolve("conf/sluice.yaml")).isRegularFile();
    assertThat(archive.resolve("conf/jvm.options"))
        .hasSameTextualContentAs(Path.of("..", "sluice-proxy", "jvm.options"));
    assertThat(archive.resolve("systemd/sluice.service")).isRegularFile();
    assertThat(archive.resolve("systemd/sluice.sysusers")).isRegularFile();
    assertThat(archive.resolve("lib/sluice.aot")).isNotEmptyFile();
    assertThat(archive.resolve("runtime/legal")).isDirectory();

    // lib/classpath, which fixes the order the launcher and the AOT cache use, names every jar.
    List<String> classpath = Files.readAllLines(archive.resolve("lib/classpath"));
    assertThat(classpath.getFirst()).startsWith("sluice-proxy-");
    try (Stream<Path> jars = Files.list(archive.resolve("lib"))) {
      assertThat(jars.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")))
          .containsExactlyInAnyOrderElementsOf(classpath)
          .anyMatch(n -> n.startsWith("sluice-core-"));
    }
  }

  @Test
  void everyThirdPartyJarIsListedWithItsLicence() throws Exception {
    String notices = Files.readString(archive.resolve("licenses/THIRD-PARTY.md"));
    assertThat(archive.resolve("licenses/Apache-2.0.txt")).content().contains("Apache License");
    assertThat(archive.resolve("licenses/LGPL-2.1.txt")).content().contains("LESSER GENERAL");
    for (String jar : Files.readAllLines(archive.resolve("lib/classpath"))) {
      if (jar.startsWith("sluice-")) {
        continue;
      }
      // picocli-4.7.7.jar -> picocli; prometheus-metrics-core-1.10.0.jar -> prometheus-metrics-*
      String library = jar.replaceFirst("-\\d[^-]*\\.jar$", "");
      String listedAs =
          library.startsWith("prometheus-metrics-") ? "prometheus-metrics-*" : library;
      assertThat(notices).as("THIRD-PARTY.md lists " + jar).contains(listedAs);
    }
  }

  @Test
  void theRuntimeHasExactlyTheModulesTheJarsNeed() throws Exception {
    Set<String> wanted = Set.of(System.getProperty("sluice.modules").split(","));
    Unpacked.Result modules =
        Unpacked.run(
            archive.home(),
            Unpacked.BARE_ENVIRONMENT,
            List.of(archive.resolve("runtime/bin/java").toString(), "--list-modules"));
    assertThat(modules.exitCode()).isZero();
    Set<String> present =
        modules
            .output()
            .lines()
            .map(line -> line.replaceFirst("@.*", "").strip())
            .collect(Collectors.toSet());
    // jlink adds what the named modules require (java.management for jdk.management, ...).
    assertThat(present).containsAll(wanted);

    // What jdeps, from the JDK that built the archive, says the jars need is all there.
    String jdk = System.getProperty("java.home");
    List<String> jdeps =
        new java.util.ArrayList<>(
            List.of(
                Path.of(jdk, "bin", "jdeps").toString(),
                "--multi-release",
                "25",
                "--ignore-missing-deps",
                "--print-module-deps"));
    for (String jar : Files.readAllLines(archive.resolve("lib/classpath"))) {
      jdeps.add(archive.resolve("lib").resolve(jar).toString());
    }
    Unpacked.Result needed = Unpacked.run(archive.home(), Map.of("PATH", "/usr/bin:/bin"), jdeps);
    assertThat(needed.exitCode()).as(needed.output()).isZero();
    String last = needed.output().strip().lines().reduce((a, b) -> b).orElseThrow();
    assertThat(present).containsAll(new HashSet<>(Arrays.asList(last.split(","))));
  }

  @Test
  void withoutTheAotCacheTheRuntimeStillSharesItsClassesForTheShippedObjectHeaders()
      throws Exception {
    // -Xshare:on refuses to start when no default CDS archive fits the flags; jvm.options asks
    // for compact object headers, whose archive jlink does not make.
    assertThat(Files.readString(archive.resolve("conf/jvm.options")))
        .contains("-XX:+UseCompactObjectHeaders");
    Unpacked.Result shared =
        Unpacked.run(
            archive.home(),
            Unpacked.BARE_ENVIRONMENT,
            List.of(
                archive.resolve("runtime/bin/java").toString(),
                "-XX:+UseCompactObjectHeaders",
                "-Xshare:on",
                "-version"));
    assertThat(shared.exitCode()).as(shared.output()).isZero();
  }

  @Test
  void versionNamesTheReleaseTheCommitAndTheArchivesOwnRuntime() throws Exception {
    // Through a symlink, as /opt/sluice -> /opt/sluice-VERSION.
    Path link = unpackDir.resolve("current");
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, archive.home());
    Unpacked.Result version =
        Unpacked.run(
            unpackDir,
            Unpacked.BARE_ENVIRONMENT,
            List.of(link.resolve("bin/sluice").toString(), "--version"));
    assertThat(version.exitCode()).as(version.output()).isZero();
    assertThat(version.output())
        .contains("sluice " + Unpacked.version() + " (commit ")
        .containsPattern("jdk: 25[.0-9+A-Za-z-]* \\(.*\\) at " + archive.resolve("runtime"))
        // the launcher enables native access, so auto takes epoll on Linux
        .contains("transport: epoll (auto)")
        // auto, resolved: OpenSSL where libssl.so.3 loads, else the JDK with the reason
        .containsPattern("tls engine: (openssl \\(auto; OpenSSL 3|jdk \\(auto; OpenSSL: )");
    if (Files.isDirectory(Path.of("..", ".git"))) { // built from a clone: the commit is known
      assertThat(version.output()).containsPattern("\\(commit [0-9a-f]{10}(-dirty)?\\)");
    }
  }

  @Test
  void theStarterConfigurationPassesCheckAndABrokenOneIsRefusedWithItsLine() throws Exception {
    Unpacked.Result starter =
        archive.sluice(
            Map.of(), "check", "--config", archive.resolve("conf/sluice.yaml").toString());
    assertThat(starter.exitCode()).as(starter.output()).isZero();

    Path broken = unpackDir.resolve("broken.yaml");
    Files.writeString(
        broken,
        Files.readString(archive.resolve("conf/sluice.yaml"))
            .replace("connect: 5s", "connect: five seconds"));
    Unpacked.Result refused = archive.sluice(Map.of(), "check", "--config", broken.toString());
    assertThat(refused.exitCode()).isNotZero();
    int line =
        Files.readAllLines(broken).indexOf("  connect: five seconds") + 1; // 1-based, as editors
    assertThat(line).isPositive();
    assertThat(refused.output()).contains("broken.yaml").contains(":" + line).contains("connect");
  }

  @Test
  void runsAConfigurationOnItsAotCacheProxiesAndDrainsOnSigterm() throws Exception {
    try (ServerSocket upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofPlatform().daemon().start(() -> echo(upstream));
      int port = freePort();
      Path config = unpackDir.resolve("run.yaml");
      Files.writeString(
          config,
          """
          listeners:
            - {name: app, address: 127.0.0.1:%d, cluster: app}
          clusters:
            - {name: app, upstreams: [{address: 127.0.0.1:%d}]}
          timeouts: {drain: 2s}
          """
              .formatted(port, upstream.getLocalPort()));
      Path log = unpackDir.resolve("run.log");
      Process proxy =
          archive.start(
              log,
              Map.of("SLUICE_JAVA_OPTS", "-Xlog:aot=info"),
              "run",
              "--config",
              config.toString());
      try {
        byte[] sent = "through the archive's proxy".getBytes(StandardCharsets.UTF_8);
        assertThat(echoWhenUp(port, sent, proxy)).isEqualTo(sent);
        // SIGHUP reloads (the runtime has what the signal handling needs) and the proxy stays up.
        signal(proxy, "HUP");
        awaitLine(log, "configuration reloaded (SIGHUP)", proxy);
        assertThat(echoWhenUp(port, sent, proxy)).isEqualTo(sent);
      } finally {
        proxy.destroy(); // SIGTERM
        assertThat(proxy.waitFor(60, TimeUnit.SECONDS)).as("stopped after its drain").isTrue();
      }
      String output = Files.readString(log);
      // The cache made at package time serves the unpacked copy (no class path mismatch).
      assertThat(output)
          .contains("Using AOT-linked classes: true")
          .doesNotContainIgnoringCase("mismatch")
          .contains("shutting down: draining");
    }
  }

  private static void signal(Process process, String name) throws Exception {
    Unpacked.Result kill =
        Unpacked.run(
            unpackDir,
            Unpacked.BARE_ENVIRONMENT,
            List.of("kill", "-" + name, Long.toString(process.pid())));
    assertThat(kill.exitCode()).as(kill.output()).isZero();
  }

  private static void awaitLine(Path log, String text, Process proxy) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log).contains(text)) {
      assertThat(proxy.isAlive()).as("the proxy is running:\n" + Files.readString(log)).isTrue();
      assertThat(System.nanoTime()).as("waiting for: " + text).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private static byte[] echoWhenUp(int port, byte[] sent, Process proxy) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      assertThat(proxy.isAlive()).as("the proxy is running").isTrue();
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(sent);
        return socket.getInputStream().readNBytes(sent.length);
      } catch (java.net.ConnectException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.sleep(50);
      }
    }
  }

  private static void echo(ServerSocket server) {
    while (true) {
      try {
        Socket client = server.accept();
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (client;
                      InputStream in = client.getInputStream();
                      OutputStream out = client.getOutputStream()) {
                    in.transferTo(out);
                  } catch (IOException closed) {
                    // the proxy closed the pair
                  }
                });
      } catch (IOException closed) {
        return;
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }
}
