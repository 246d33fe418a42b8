package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.testing.BenchRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The startup workload, short, through the real harness, on the one-listener configuration (the
 * demo's fixed ports could be taken on a shared machine). Figures are not asserted.
 */
class StartupWorkloadSmokeTest {
  @TempDir Path dir;

  @Test
  @SuppressWarnings("unchecked")
  void everyArmStartsEchoesAndIsMeasured() {
    BenchRun outcome =
        BenchRun.of("startup", "--config", "bench", "--after-ms", "300", "--runs", "1");
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> arms = (Map<String, Object>) outcome.lastLineJson().get("arms");
    List<String> expected =
        ProxyArms.available().stream()
            .filter(i -> i != Impl.NETTY && i != Impl.NETTY_EPOLL)
            .map(Impl::id)
            .toList();
    assertThat(arms.keySet()).containsExactlyElementsOf(expected);
    arms.forEach(
        (id, arm) ->
            assertThat((Map<String, Object>) arm)
                .containsEntry("integrity", "OK")
                .containsKeys("firstEchoMs", "rssBytes", "rssAnonBytes", "rssFileBytes"));
    if (arms.containsKey("sluice")) {
      assertThat((Map<String, Object>) arms.get("sluice")).containsKey("classesLoaded");
    }
  }

  /** A launcher that starts the JVM as its child (no exec): the JVM is found below it. */
  @Test
  @SuppressWarnings("unchecked")
  void aLauncherIsRunWithTheSameArgumentsAndMeasuredWithItsChildren() throws Exception {
    Path proxyTarget = Path.of("..", "sluice-proxy", "target").toAbsolutePath().normalize();
    Path launcher = dir.resolve("sluice");
    Files.writeString(
        launcher,
        "#!/bin/sh\n"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + " -XX:+UseSerialGC -cp '"
            + proxyTarget.resolve("sluice-proxy.jar")
            + ":"
            + proxyTarget.resolve("lib")
            + "/*' dev.sluice.proxy.cli.Main \"$@\"\n");
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    BenchRun outcome =
        BenchRun.of(
            "startup",
            "--config",
            "bench",
            "--after-ms",
            "300",
            "--runs",
            "1",
            "--impl",
            "sluice",
            "--launcher",
            launcher.toString());
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKey("classesLoaded");
    assertThat((String) ((Map<String, Object>) json.get("conditions")).get("sluice"))
        .startsWith(launcher.toString());
  }

  @Test
  void aCorruptedEchoFailsTheRun() {
    BenchRun outcome =
        BenchRun.of(
            "startup",
            "--config",
            "bench",
            "--after-ms",
            "100",
            "--runs",
            "1",
            "--impl",
            "haproxy",
            "--corrupt-at",
            "100");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("at byte 100");
  }
}
