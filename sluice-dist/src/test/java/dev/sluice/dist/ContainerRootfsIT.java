package dev.sluice.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image's root filesystem, run without a container runtime: {@code
 * deploy/container/test-rootfs} lays the release archive ({@code -Dsluice.archive}) over the
 * mmdebstrap base (cached in {@code -Dsluice.rootfsCache}, built there once per package list) and
 * runs {@code bin/sluice} in it with chroot as the image's user, in private network and mount
 * namespaces with the root read-only. Each of its checks must pass and be reported. Needs root, as
 * chroot does, and mmdebstrap (installed by {@code .ci/run}).
 */
class ContainerRootfsIT {
  /** Each line the script prints when a check passed: a script that skipped one fails here. */
  private static final List<String> CHECKS =
      List.of(
          "root filesystem read-only, /tmp writable",
          "--version: ",
          "auto runs epoll and openssl",
          "check of the image's configuration: ",
          "health check passes while the demo is live",
          "the proxy runs as 10001:10001",
          "echo through the demo's listener, from outside the chroot",
          "health check (SLUICE_ADMIN=127.0.0.1:9100) passes while the image's CMD is live",
          "echo through the mounted configuration's listener and the demo",
          "SIGHUP reloads",
          "SIGTERM drains and stops",
          "health check fails once the proxy has stopped",
          "health check fails once the demo has stopped");

  @TempDir Path dir;

  @Test
  void theImagesRootFilesystemRunsTheProxyAsItsUserReadOnly() throws Exception {
    Path archive = Path.of(property("sluice.archive")).toAbsolutePath();
    Path cache = Path.of(property("sluice.rootfsCache")).toAbsolutePath();
    assertTrue(Files.isRegularFile(archive), "no release archive at " + archive);
    assertEquals(
        0,
        (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
        "the root filesystem test runs chroot and unshare: run it as root");
    Path script = repositoryRoot().resolve("deploy/container/test-rootfs");
    Path log = dir.resolve("test-rootfs.log");
    Process process =
        new ProcessBuilder(script.toString(), archive.toString(), cache.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // mmdebstrap downloads the base once per cache; the checks themselves take seconds.
    if (!process.waitFor(20, TimeUnit.MINUTES)) {
      // The proxies it started are its children: they would outlive a killed script.
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      fail("test-rootfs did not finish:\n" + Files.readString(log));
    }
    String output = Files.readString(log);
    assertEquals(0, process.exitValue(), output);
    for (String check : CHECKS) {
      assertTrue(
          output.contains("test-rootfs: ok: " + check), "not reported: " + check + "\n" + output);
    }
    assertTrue(output.contains("test-rootfs: all checks passed"), output);
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      fail("set -D" + name);
    }
    return value;
  }

  /** The source tree: the first directory above the module's that holds deploy/container. */
  private static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isExecutable(p.resolve("deploy/container/test-rootfs"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "deploy/container/test-rootfs not found above " + Path.of("").toAbsolutePath());
  }
}
