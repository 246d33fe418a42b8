package dev.sluice.bench.harness;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Samples a process's VmRSS from {@code /proc} on a thread of the harness process, keeping the
 * highest value seen: a cross-check of the kernel's own VmHWM, and the only peak figure where VmHWM
 * cannot be reset.
 */
public final class RssSampler implements AutoCloseable {
  private final long pid;
  private final long intervalNanos;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long maxRssBytes;
  private volatile long samples;

  private RssSampler(long pid, Duration interval) {
    this.pid = pid;
    this.intervalNanos = interval.toNanos();
    this.thread = Thread.ofPlatform().name("rss-sampler-" + pid).daemon(true).unstarted(this::loop);
  }

  /** Starts sampling {@code pid} every {@code interval}. */
  public static RssSampler start(long pid, Duration interval) {
    RssSampler sampler = new RssSampler(pid, interval);
    sampler.thread.start();
    return sampler;
  }

  private void loop() {
    while (running) {
      try {
        long rss = ProcStatus.read(pid).vmRssBytes();
        if (rss > maxRssBytes) {
          maxRssBytes = rss;
        }
        samples++;
      } catch (IOException | IllegalArgumentException e) {
        return; // the process is gone: nothing more to sample
      }
      LockSupport.parkNanos(intervalNanos);
    }
  }

  /** Stops sampling and waits for the sampling thread. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The highest VmRSS seen so far. */
  public long maxRssBytes() {
    return maxRssBytes;
  }

  /** How many samples were taken. */
  public long samples() {
    return samples;
  }
}
