package dev.sluice.bench.proxy;

import dev.sluice.bench.child.HeapHistogram;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Looks inside a JVM proxy from the harness with the JDK's {@code jcmd} (the attach mechanism), so
 * the proxy needs no hook of its own: {@code GC.class_histogram} runs a full GC and counts every
 * live object ({@link HeapHistogram}); {@code PerfCounter.print} gives the collectors' counts. The
 * first attach starts the target's attach-listener thread, which then stays: attach once before a
 * baseline.
 */
public final class Jcmd {
  private static final long TIMEOUT_SECONDS = 120;

  private Jcmd() {}

  /** The live heap of {@code proxy} by class (a full GC runs first). */
  public static HeapHistogram histogram(ProxyProcess proxy)
      throws IOException, InterruptedException {
    String text = run(proxy, "GC.class_histogram");
    if (!text.contains("\nTotal ")) {
      throw new IOException(
          "jcmd " + proxy.pid() + " GC.class_histogram printed no histogram: " + text);
    }
    return HeapHistogram.parse(text);
  }

  /** How many young-generation collections {@code proxy} has run. */
  public static long youngCollections(ProxyProcess proxy) throws IOException, InterruptedException {
    String counters = run(proxy, "PerfCounter.print");
    for (String line : counters.split("\n")) {
      if (line.startsWith("sun.gc.collector.0.invocations=")) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1).trim());
      }
    }
    throw new IOException(
        "jcmd " + proxy.pid() + " PerfCounter.print gave no young collector count");
  }

  /**
   * Runs {@code jcmd PID COMMAND...} on {@code proxy}. Where jcmd fails because the proxy is gone,
   * the failure says so with its exit code and its last lines (a JVM that crashed prints why
   * there), not only jcmd's "non existent JVM pid".
   *
   * @throws dev.sluice.bench.harness.ChildFailedException when the proxy exited
   */
  public static String run(ProxyProcess proxy, String... command)
      throws IOException, InterruptedException {
    proxy.checkAlive();
    try {
      return run(proxy.pid(), command);
    } catch (IOException e) {
      proxy.awaitExitBriefly();
      proxy.checkAlive();
      throw e;
    }
  }

  /**
   * Runs {@code jcmd PID COMMAND...} with the harness's own JDK and returns what it printed.
   *
   * @throws IOException when jcmd fails (e.g. the target disabled attaching), with its output
   */
  public static String run(long pid, String... command) throws IOException, InterruptedException {
    List<String> line = new ArrayList<>();
    line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    line.add(Long.toString(pid));
    line.addAll(List.of(command));
    Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("jcmd " + String.join(" ", command) + " did not finish");
    }
    if (process.exitValue() != 0) {
      throw new IOException(
          "jcmd "
              + pid
              + " "
              + String.join(" ", command)
              + " failed (exit "
              + process.exitValue()
              + "): "
              + output.strip());
    }
    return output;
  }
}
