package dev.sluice.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class of the test classpath in a fresh JVM (the same java binary), for scenarios that
 * must not share this JVM: flags this JVM was not started with, or exhausting the process's file
 * descriptors. The child reports with lines {@code result KEY=VALUE}.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** What a child printed and how it exited. */
  public record Run(int exitCode, List<String> output) {
    /** The {@code result KEY=VALUE} lines, in order. */
    public Map<String, String> results() {
      Map<String, String> results = new LinkedHashMap<>();
      for (String line : output) {
        if (line.startsWith("result ")) {
          String pair = line.substring("result ".length());
          int eq = pair.indexOf('=');
          results.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
      return results;
    }

    /** A result as a number; fails naming the whole output when it is missing. */
    public long number(String key) {
      String value = results().get(key);
      if (value == null) {
        throw new AssertionError("the child reported no " + key + "; its output:\n" + this);
      }
      return Long.parseLong(value);
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n" + String.join("\n", output);
    }
  }

  /** Prints one result line for the parent. */
  public static void report(String key, Object value) {
    System.out.println("result " + key + "=" + value);
  }

  /**
   * Runs {@code main} with {@code jvmOptions} and {@code args}; kills it and fails after {@code
   * timeout}.
   */
  public static Run run(Duration timeout, List<String> jvmOptions, Class<?> main, String... args)
      throws IOException, InterruptedException {
    return run(timeout, Map.of(), jvmOptions, main, args);
  }

  /** As above, with {@code environment} added to this JVM's for the child. */
  public static Run run(
      Duration timeout,
      Map<String, String> environment,
      List<String> jvmOptions,
      Class<?> main,
      String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    String engine = System.getProperty(dev.sluice.tls.TlsEngineKind.DEFAULT_PROPERTY);
    if (engine != null) {
      command.add(
          "-D" + dev.sluice.tls.TlsEngineKind.DEFAULT_PROPERTY + "=" + engine); // the matrix
    }
    String library = System.getProperty("sluice.tls.library");
    if (library != null) {
      command.add("-Dsluice.tls.library=" + library); // the matrix's BoringSSL run
    }
    command.addAll(jvmOptions);
    String transport = System.getProperty("sluice.transport");
    if (transport != null) {
      command.add("-Dsluice.transport=" + transport); // the child runs where the matrix runs
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    List<String> output = new ArrayList<>();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                      synchronized (output) {
                        output.add(line);
                      }
                    }
                  } catch (IOException e) {
                    synchronized (output) {
                      output.add("(reading the child's output failed: " + e + ")");
                    }
                  }
                });
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      reader.join();
      throw new AssertionError(
          main.getSimpleName() + " did not finish within " + timeout + "; its output:\n" + output);
    }
    reader.join();
    return new Run(process.exitValue(), List.copyOf(output));
  }
}
