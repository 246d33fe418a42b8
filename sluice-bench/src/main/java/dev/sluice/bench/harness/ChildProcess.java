package dev.sluice.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM seen from the harness: protocol lines in (its stdout) and out (its stdin), its stderr
 * kept for error reports, and its memory read from {@code /proc}. Closing it asks it to exit and
 * kills it if it does not.
 */
public final class ChildProcess implements AutoCloseable {
  private static final String END_OF_OUTPUT = "\u0000eof";
  private static final int STDERR_LINES_KEPT = 60;
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    // Never leave a child behind, even when the harness is interrupted.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "kill-children"));
  }

  private final String label;
  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final ArrayDeque<String> stderrTail = new ArrayDeque<>();

  private ChildProcess(String label, Process process) {
    this.label = label;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    daemon(label + "-out", () -> pumpStdout(process.getInputStream()));
    daemon(label + "-err", () -> pumpStderr(process.getErrorStream()));
  }

  /** Starts {@code command}; {@code label} names the child in errors and progress lines. */
  public static ChildProcess start(String label, List<String> command) throws IOException {
    Process process = new ProcessBuilder(command).start();
    LIVE.add(process);
    return new ChildProcess(label, process);
  }

  /** The child's process id. */
  public long pid() {
    return process.pid();
  }

  /** The name this child goes by in messages. */
  public String label() {
    return label;
  }

  /** Sends one protocol line to the child. */
  public void send(Message message) throws IOException {
    stdin.write(message.format());
    stdin.write('\n');
    stdin.flush();
  }

  /** Sends a message with no fields. */
  public void send(String word) throws IOException {
    send(Message.of(word));
  }

  /**
   * Waits for the child's next protocol line, which must carry {@code word}.
   *
   * @throws ChildFailedException if the child reported an error, exited, said something else or
   *     stayed silent for {@code timeout}; the message includes the end of its stderr
   */
  public Message await(String word, Duration timeout) throws InterruptedException {
    String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      throw failure(
          "said nothing for " + timeout.toSeconds() + " s while the harness waited for " + word);
    }
    if (line.equals(END_OF_OUTPUT)) {
      lines.add(END_OF_OUTPUT);
      throw failure("exited (" + exitStatus() + ") while the harness waited for " + word);
    }
    Message message;
    try {
      message = Message.parse(line);
    } catch (IllegalArgumentException e) {
      throw failure("wrote a malformed protocol line: " + line);
    }
    if (message.word().equals(Message.ERROR)) {
      throw failure("failed: " + message.fields().getOrDefault("message", line));
    }
    if (!message.word().equals(word)) {
      throw failure("said " + message.format() + " while the harness waited for " + word);
    }
    return message;
  }

  /** The child's memory lines from {@code /proc/PID/status}. */
  public ProcStatus procStatus() throws IOException {
    return ProcStatus.read(pid());
  }

  /**
   * CPU time (user plus system, all threads) the child has used so far, as the kernel counts it
   * (clock ticks, usually 10 ms).
   *
   * @throws IllegalStateException where the platform does not report it
   */
  public Duration cpuTime() {
    return process
        .info()
        .totalCpuDuration()
        .orElseThrow(() -> new IllegalStateException("no CPU time for " + label));
  }

  /**
   * Resets the child's VmHWM to its current RSS (writes 5 to {@code /proc/PID/clear_refs}).
   *
   * @return false where the kernel or permissions do not allow it
   */
  public boolean resetPeakRss() {
    return ProcStatus.resetPeak(pid());
  }

  /** The last lines the child wrote to stderr. */
  public String stderrTail() {
    synchronized (stderrTail) {
      return String.join("\n", stderrTail);
    }
  }

  /**
   * When a {@link #kill} happened ({@code System.nanoTime()}).
   *
   * @param signalled just before SIGKILL was sent: the process runs no more code after it
   * @param gone once the process was reaped: the kernel has closed its sockets by then
   */
  public record Killed(long signalled, long gone) {}

  /**
   * Kills the child at once (SIGKILL: the kernel closes its sockets, as when a server crashes) and
   * waits until it is gone.
   */
  public Killed kill() throws InterruptedException {
    long signalled = System.nanoTime();
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw failure("was sent SIGKILL and did not exit within 10 s");
    }
    long gone = System.nanoTime();
    LIVE.remove(process);
    return new Killed(signalled, gone);
  }

  /** Asks the child to exit, waits a little, and kills it if it is still there. */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        send("EXIT");
      }
      stdin.close();
    } catch (IOException ignored) {
      // The child is gone already; waiting below settles it.
    }
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    LIVE.remove(process);
  }

  private ChildFailedException failure(String what) {
    String tail = stderrTail();
    return new ChildFailedException(
        label
            + " (pid "
            + pid()
            + ") "
            + what
            + (tail.isEmpty() ? "" : "\n--- its stderr, last lines ---\n" + tail));
  }

  private String exitStatus() {
    try {
      if (process.waitFor(2, TimeUnit.SECONDS)) {
        return "exit code " + process.exitValue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "still running";
  }

  private void pumpStdout(InputStream in) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException ignored) {
      // The pipe closed with the process.
    } finally {
      lines.add(END_OF_OUTPUT);
    }
  }

  private void pumpStderr(InputStream in) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        synchronized (stderrTail) {
          if (stderrTail.size() == STDERR_LINES_KEPT) {
            stderrTail.removeFirst();
          }
          stderrTail.addLast(line);
        }
      }
    } catch (IOException ignored) {
      // The pipe closed with the process.
    }
  }

  private static void daemon(String name, Runnable body) {
    Thread.ofPlatform().name(name).daemon(true).start(body);
  }
}
