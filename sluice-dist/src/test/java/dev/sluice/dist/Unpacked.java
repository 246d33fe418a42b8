package dev.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The release archive, unpacked as an operator would (with {@code tar}), and its commands run as
 * processes with an environment that has no Java in it: what the archive needs, it must bring.
 */
final class Unpacked {
  /** An environment with no JDK on PATH and a JAVA_HOME that names no Java 25. */
  static final Map<String, String> BARE_ENVIRONMENT =
      Map.of("PATH", "/usr/bin:/bin", "JAVA_HOME", "/nonexistent", "LANG", "C.UTF-8");

  private final Path home;

  private Unpacked(Path home) {
    this.home = home;
  }

  static Path archive() {
    return Path.of(System.getProperty("sluice.archive"));
  }

  static String version() {
    return System.getProperty("sluice.version");
  }

  /** Unpacks the archive into {@code dir}; the archive holds exactly one folder, sluice-VERSION. */
  static Unpacked into(Path dir) throws Exception {
    Result tar =
        run(
            dir,
            BARE_ENVIRONMENT,
            List.of("tar", "-xzf", archive().toString(), "-C", dir.toString()));
    assertThat(tar.exitCode()).as(tar.output()).isZero();
    try (var entries = Files.list(dir)) {
      assertThat(entries.map(p -> p.getFileName().toString()))
          .containsExactly("sluice-" + version());
    }
    return new Unpacked(dir.resolve("sluice-" + version()));
  }

  Path home() {
    return home;
  }

  Path resolve(String path) {
    return home.resolve(path);
  }

  /** Runs {@code bin/sluice ARGS} to its end (at most a minute). */
  Result sluice(Map<String, String> extraEnvironment, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/sluice").toString());
    command.addAll(List.of(args));
    Map<String, String> environment = new java.util.HashMap<>(BARE_ENVIRONMENT);
    environment.putAll(extraEnvironment);
    return run(home, environment, command);
  }

  /** Starts {@code bin/sluice ARGS} (its output to {@code log}); the caller stops it. */
  Process start(Path log, Map<String, String> extraEnvironment, String... args) throws IOException {
    return start(home.resolve("bin/sluice"), log, extraEnvironment, args);
  }

  static Process start(
      Path launcher, Path log, Map<String, String> extraEnvironment, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(launcher.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().putAll(BARE_ENVIRONMENT);
    builder.environment().putAll(extraEnvironment);
    return builder.start();
  }

  record Result(int exitCode, String output) {}

  static Result run(Path dir, Map<String, String> environment, List<String> command)
      throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(environment);
    Process process = builder.start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not end within a minute");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
