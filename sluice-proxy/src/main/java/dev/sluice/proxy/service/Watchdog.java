package dev.sluice.proxy.service;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Resets the service manager's watchdog ({@code WATCHDOG=1}) at half its interval, from a daemon
 * thread of its own, but only while the event loops are alive: a loop stuck in a callback holds
 * every connection on it, and the manager is then to restart the process ({@code WatchdogSec=},
 * {@code Restart=on-failure}). Alive is what {@code /live} says: each loop ran the sampler's
 * once-a-second task within the last few seconds (reading a timestamp per loop; no work on them).
 */
public final class Watchdog implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Watchdog.class);

  private final SystemdNotifier notifier;
  private final Supplier<List<String>> stuckLoops;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("sluice-watchdog").daemon(true).factory());
  private boolean withholding;

  /**
   * A watchdog that tells {@code notifier} unless {@code stuckLoops} names any; not yet beating.
   */
  Watchdog(SystemdNotifier notifier, Supplier<List<String>> stuckLoops) {
    this.notifier = notifier;
    this.stuckLoops = stuckLoops;
  }

  /** Beats now, on the caller's thread, then every half of {@code interval}. */
  static Watchdog start(
      SystemdNotifier notifier, Duration interval, Supplier<List<String>> stuckLoops) {
    Watchdog watchdog = new Watchdog(notifier, stuckLoops);
    long period = Math.max(1, interval.toNanos() / 2);
    watchdog.beat();
    watchdog.thread.scheduleAtFixedRate(watchdog::beatOrSkip, period, period, TimeUnit.NANOSECONDS);
    LOG.info("watchdog: telling the service manager every {} ms", period / 1_000_000);
    return watchdog;
  }

  /**
   * A beat from the schedule: an exception must not end the schedule (a fixed-rate task that throws
   * is never run again), only skip this beat, which systemd then sees as it should.
   */
  private void beatOrSkip() {
    try {
      beat();
    } catch (RuntimeException e) {
      LOG.error("watchdog: could not judge the event loops; WATCHDOG=1 withheld this time", e);
    }
  }

  /** Sends {@code WATCHDOG=1} if every loop is alive; returns whether it did. */
  synchronized boolean beat() {
    List<String> stuck = stuckLoops.get();
    if (stuck.isEmpty()) {
      if (withholding) {
        LOG.info("watchdog: the event loops answer again");
        withholding = false;
      }
      notifier.watchdog();
      return true;
    }
    if (!withholding) {
      LOG.error(
          "watchdog: withholding WATCHDOG=1, the service manager will restart the proxy: {}",
          String.join("; ", stuck));
      withholding = true;
    }
    return false;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
