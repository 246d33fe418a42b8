package dev.sluice.bench.proxy;

import dev.sluice.bench.harness.ChildFailedException;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.ProcStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A proxy under test seen from the harness: a process of its own (a JVM for the Sluice and Netty
 * arms, HAProxy itself for the HAProxy arm, nginx's master for the nginx arm, whose workers are its
 * children) that knows nothing of the harness's line protocol. It is started with its
 * configuration, is ready when its listener accepts a connection, is measured from {@code
 * /proc/PID} (CPU time and RSS summed over the process and its descendants: nginx's workers hold
 * the connections), and is stopped with SIGTERM (then SIGKILL, descendants too). Its output (stdout
 * and stderr merged) is kept for error reports.
 */
public final class ProxyProcess implements AutoCloseable {
  private static final int OUTPUT_LINES_KEPT = 60;
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    // Never leave a proxy behind, even when the harness is interrupted.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () ->
                    LIVE.forEach(
                        p -> {
                          p.descendants().forEach(ProcessHandle::destroyForcibly);
                          p.destroyForcibly();
                        }),
                "kill-proxies"));
  }

  private final Impl impl;
  private final Process process;
  private final boolean jvm;
  private final InetSocketAddress listen;
  private final Path workDir;
  private final ArrayDeque<String> outputTail = new ArrayDeque<>();
  private final long startNanos;

  private ProxyProcess(
      Impl impl,
      Process process,
      long startNanos,
      boolean jvm,
      InetSocketAddress listen,
      Path workDir) {
    this.impl = impl;
    this.startNanos = startNanos;
    this.process = process;
    this.jvm = jvm;
    this.listen = listen;
    this.workDir = workDir;
    Thread.ofPlatform()
        .name(impl.id() + "-output")
        .daemon(true)
        .start(() -> pump(process.getInputStream()));
  }

  /**
   * Starts {@code command}, the proxy of arm {@code impl}, which will listen on {@code listen}.
   *
   * @param jvm whether the process is a JVM (then {@link Jcmd} can look inside it)
   * @param workDir the directory holding its configuration, deleted when it is closed
   */
  static ProxyProcess start(
      Impl impl, List<String> command, boolean jvm, InetSocketAddress listen, Path workDir)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
    long startNanos = System.nanoTime();
    Process process = builder.start();
    LIVE.add(process);
    process.getOutputStream().close(); // no proxy reads its stdin
    return new ProxyProcess(impl, process, startNanos, jvm, listen, workDir);
  }

  /** {@code System.nanoTime()} just before the process was started. */
  public long startNanos() {
    return startNanos;
  }

  /** The directory holding its configuration (and HAProxy's stats socket). */
  public Path workDir() {
    return workDir;
  }

  /** The arm this proxy is. */
  public Impl impl() {
    return impl;
  }

  /** The proxy's process id: the process that holds the connections. */
  public long pid() {
    return process.pid();
  }

  /** Whether it is a JVM. */
  public boolean jvm() {
    return jvm;
  }

  /** Where it listens. */
  public InetSocketAddress listenAddress() {
    return listen;
  }

  /**
   * Waits until the listener accepts a connection (which is then closed at once: the proxy may open
   * and close an upstream connection for it).
   *
   * @throws ChildFailedException if the process exits first or is not ready within {@code timeout}
   */
  public void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw failure("exited (exit code " + process.exitValue() + ") before it listened");
      }
      try (Socket probe = new Socket()) {
        probe.connect(listen, 1000);
        return;
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(20);
    }
    throw failure(
        "did not accept a connection on "
            + listen
            + " within "
            + timeout.toSeconds()
            + " s ("
            + last
            + ")");
  }

  /** Fails unless the process is still running. */
  public void checkAlive() {
    if (!process.isAlive()) {
      int code = process.exitValue();
      // Java reports a process killed by signal N as 128 + N (9: SIGKILL, as the OOM killer sends).
      String signal = code > 128 ? ", killed by signal " + (code - 128) : "";
      throw failure("exited (exit code " + code + signal + ") during the run");
    }
  }

  /**
   * Gives a process that is going away a moment to be gone: its /proc entry can vanish before the
   * exit is reported to its parent.
   */
  void awaitExitBriefly() throws InterruptedException {
    process.waitFor(2, TimeUnit.SECONDS);
  }

  /** Its VmRSS and VmHWM, from {@code /proc/PID/status}. */
  public ProcStatus procStatus() throws IOException {
    checkAlive();
    return ProcStatus.read(pid());
  }

  /**
   * CPU time of all its threads so far, from {@code /proc/PID/stat}, and of its descendants'
   * (nginx's workers; the other arms have none).
   */
  public Duration cpuTime() throws IOException {
    checkAlive();
    Duration total = Duration.ZERO;
    for (long pid : processTree()) {
      total = total.plus(ProcStat.cpuTime(pid));
    }
    return total;
  }

  /**
   * CPU time its JIT compiler threads have used so far ({@link ProcStat#compilerCpuTime}); zero for
   * a proxy that is not a JVM.
   */
  public Duration compilerCpuTime() throws IOException {
    checkAlive();
    return jvm ? ProcStat.compilerCpuTime(pid()) : Duration.ZERO;
  }

  /**
   * VmRSS of the process plus that of each descendant (nginx's workers; the other arms have none).
   * Pages they share are counted in each: growth between two readings is what the figures use.
   */
  public long rssBytes() throws IOException {
    checkAlive();
    long total = 0;
    for (long pid : processTree()) {
      total += ProcStatus.read(pid).vmRssBytes();
    }
    return total;
  }

  /** The process and its descendants, by id. */
  public List<Long> processTree() {
    List<Long> pids = new java.util.ArrayList<>();
    pids.add(pid());
    process.descendants().forEach(child -> pids.add(child.pid()));
    return pids;
  }

  /**
   * Resets its VmHWM to its current RSS (writes 5 to {@code /proc/PID/clear_refs}).
   *
   * @return false where the kernel or permissions do not allow it
   */
  public boolean resetPeakRss() {
    return ProcStatus.resetPeak(pid());
  }

  /** The last lines the proxy printed. */
  public String outputTail() {
    synchronized (outputTail) {
      return String.join("\n", outputTail);
    }
  }

  /** An exception naming the proxy, with the end of its output. */
  public ChildFailedException failure(String what) {
    String tail = outputTail();
    return new ChildFailedException(
        impl.displayName()
            + " proxy (pid "
            + pid()
            + ") "
            + what
            + (tail.isEmpty() ? "" : "\n--- its output, last lines ---\n" + tail));
  }

  /** Stops it: SIGTERM, up to 10 s to exit, then SIGKILL; then any descendant still alive. */
  @Override
  public void close() {
    List<ProcessHandle> descendants = process.descendants().toList();
    try {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    LIVE.remove(process);
    deleteRecursively(workDir);
  }

  private static void deleteRecursively(Path dir) {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // A temporary file left behind is harmless.
    }
  }

  private void pump(InputStream in) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        synchronized (outputTail) {
          if (outputTail.size() == OUTPUT_LINES_KEPT) {
            outputTail.removeFirst();
          }
          outputTail.addLast(line);
        }
      }
    } catch (IOException ignored) {
      // The pipe closed with the process.
    }
  }
}
