package dev.sluice.proxy.runtime;

import dev.sluice.proxy.cluster.Cluster;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Resolves a cluster's host names again, on the proxy's DNS thread: every {@code resolveInterval}
 * (when one is set), at once after a reload, and, while a name resolves to no address, with a
 * back-off from 1 s doubling to 30 s (never longer than the interval), so a cluster that started
 * empty fills once its names resolve instead of staying empty.
 */
final class DnsRefresh {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DnsRefresh.class);

  /** The first retry of a name that resolved to nothing. */
  static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  /** The longest wait between retries of a name that resolves to nothing. */
  static final Duration MAX_RETRY = Duration.ofSeconds(30);

  private final Cluster cluster;
  private final ScheduledExecutorService dns;
  private final Runnable onChange;
  private Duration retry = FIRST_RETRY; // guarded by this
  private ScheduledFuture<?> next; // the resolution waiting to run, or null; guarded by this
  private long scheduled; // which one that is; guarded by this
  private boolean stopped; // guarded by this

  /**
   * For {@code cluster}, whose names were resolved when it was built; {@code onChange} runs after a
   * resolution changed its upstreams.
   */
  DnsRefresh(Cluster cluster, ScheduledExecutorService dns, Runnable onChange) {
    this.cluster = cluster;
    this.dns = dns;
    this.onChange = onChange;
  }

  /** Schedules the next resolution after the one its cluster was built with. */
  synchronized void start() {
    scheduleNext();
  }

  /** Resolves again now (a reload), then goes on with the schedule. */
  synchronized void now() {
    schedule(Duration.ZERO);
  }

  synchronized void stop() {
    stopped = true;
    if (next != null) {
      next.cancel(false);
    }
  }

  private void run(long which) {
    synchronized (this) {
      if (which == scheduled) {
        next = null; // running now: no longer waiting
      }
    }
    try {
      if (cluster.refresh()) {
        onChange.run();
      }
    } catch (RuntimeException e) {
      LOG.warn("resolving cluster {} failed", cluster.name(), e);
    }
    synchronized (this) {
      scheduleNext();
    }
  }

  private void scheduleNext() {
    boolean unresolved = !cluster.unresolved().isEmpty();
    Duration delay = delay(unresolved, cluster.config().resolveInterval(), retry);
    retry = unresolved ? nextRetry(retry) : FIRST_RETRY;
    if (delay != null) {
      schedule(delay);
    }
  }

  /** Schedules a resolution in {@code delay}, unless one is due sooner already. */
  private void schedule(Duration delay) {
    if (stopped) {
      return;
    }
    if (next != null) {
      if (next.getDelay(TimeUnit.NANOSECONDS) <= delay.toNanos()) {
        return;
      }
      next.cancel(false);
    }
    long which = ++scheduled;
    try {
      next = dns.schedule(() -> run(which), delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
      next = null;
    }
  }

  /**
   * How long until the next resolution: the retry back-off while a name resolves to nothing (no
   * longer than the interval), else the interval; null for none (resolved, and no interval).
   */
  static Duration delay(boolean unresolved, Duration interval, Duration retry) {
    if (unresolved) {
      return interval.isZero() || retry.compareTo(interval) < 0 ? retry : interval;
    }
    return interval.isZero() ? null : interval;
  }

  /** The back-off after {@code retry}: doubled, up to {@link #MAX_RETRY}. */
  static Duration nextRetry(Duration retry) {
    Duration doubled = retry.multipliedBy(2);
    return doubled.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : doubled;
  }
}
