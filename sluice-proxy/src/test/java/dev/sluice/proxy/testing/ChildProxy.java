package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The real command, {@code sluice run --config FILE}, in a child JVM with the test's class path:
 * for what only a process can show (signals, a second process on the same port, the exit).
 */
public final class ChildProxy implements AutoCloseable {
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private ChildProxy(Process process) {
    this.process = process;
    this.reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                      output.add(line);
                    }
                  } catch (IOException ended) {
                    // the process is gone
                  }
                });
  }

  /** Starts {@code sluice <args>}, output and errors merged. */
  public static ChildProxy start(String... args) throws IOException {
    return start(List.of(), args);
  }

  /** Starts {@code sluice <args>} in a JVM with {@code jvmOptions} too. */
  public static ChildProxy start(List<String> jvmOptions, String... args) throws IOException {
    return startUnder(List.of(), jvmOptions, args);
  }

  /**
   * Starts {@code sluice <args>} as the command of {@code launcher} (such as {@code nohup}, which
   * starts it with SIGHUP ignored).
   */
  public static ChildProxy startUnder(
      List<String> launcher, List<String> jvmOptions, String... args) throws IOException {
    return startWith(launcher, jvmOptions, Map.of(), args);
  }

  /**
   * Starts {@code sluice <args>} with {@code environment} added to this process's. What a service
   * manager sets ({@code NOTIFY_SOCKET}, {@code WATCHDOG_*}) is never inherited: a test run under
   * systemd must not tell it about its children.
   */
  public static ChildProxy startWith(
      List<String> launcher,
      List<String> jvmOptions,
      Map<String, String> environment,
      String... args)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(launcher);
    command.add(java);
    command.add("-XX:+UseSerialGC");
    command.add("--enable-native-access=ALL-UNNAMED");
    String transport = System.getProperty("sluice.transport");
    if (transport != null) {
      command.add("-Dsluice.transport=" + transport); // the proxy runs where the matrix runs
    }
    String engine = System.getProperty(dev.sluice.tls.TlsEngineKind.DEFAULT_PROPERTY);
    if (engine != null) {
      command.add(
          "-D" + dev.sluice.tls.TlsEngineKind.DEFAULT_PROPERTY + "=" + engine); // the matrix
    }
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(shippedClassPath());
    command.add("dev.sluice.proxy.cli.Main");
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder
        .environment()
        .keySet()
        .removeAll(List.of("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"));
    builder.environment().putAll(environment);
    return new ChildProxy(builder.start());
  }

  /**
   * The test's class path without its test classes: the child runs the main classes with the
   * shipped logging, not the tests' {@code logback-test.xml}.
   */
  private static String shippedClassPath() {
    return java.util.Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !Path.of(entry).endsWith("test-classes"))
        .collect(java.util.stream.Collectors.joining(File.pathSeparator));
  }

  /** Starts {@code sluice run --config FILE} and waits until it says it is running. */
  public static ChildProxy run(Path config, String... jvmOptions) throws IOException {
    ChildProxy child = start(List.of(jvmOptions), "run", "--config", config.toString());
    child.awaitOutput("Sluice proxy running");
    return child;
  }

  public long pid() {
    return process.pid();
  }

  /** Waits until a line containing {@code text} was printed. */
  public void awaitOutput(String text) {
    Await.until(
        () ->
            output.stream().anyMatch(line -> line.contains(text))
                || !process.isAlive() && printed(text),
        () -> "'" + text + "' from the child; it printed:\n" + String.join("\n", output));
    if (!printed(text)) {
      throw new AssertionError(
          "the child exited without printing '" + text + "':\n" + String.join("\n", output));
    }
  }

  private boolean printed(String text) {
    return output.stream().anyMatch(line -> line.contains(text));
  }

  /** Everything printed so far. */
  public List<String> output() {
    return List.copyOf(output);
  }

  /** Sends a signal (HUP, TERM...). */
  public void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** Waits for the process to end; returns its exit code. */
  public int awaitExit() throws InterruptedException {
    if (!process.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("the child did not exit:\n" + String.join("\n", output));
    }
    // The exit can be seen before its last lines are read: wait for the end of its output.
    reader.join(Await.PATIENCE.toMillis());
    return process.exitValue();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
