package dev.sluice.proxy.forward;

import dev.sluice.net.EventLoop;
import dev.sluice.proxy.config.TimeoutSettings;
import dev.sluice.proxy.config.Units;
import java.time.Duration;

/**
 * A pair's timeouts, judged by one timer at the soonest deadline: idle (no bytes either way and
 * nothing pending), half-close (one side ended and the other moved nothing since), write stall (a
 * peer that took none of what is pending for it), and the maximum duration (age). They judge
 * inactivity, not age, unless the name says age; a backpressured pair is busy, not idle. Timers run
 * from forwarding until the end, CLOSING included: a leg left open must not linger. It is the
 * timer's task itself, so rescheduling allocates no task. Loop thread only.
 */
final class PairTimeouts implements Runnable {
  private final Pair pair;
  private EventLoop.Timeout timer;
  private long dueNanos;

  PairTimeouts(Pair pair) {
    this.pair = pair;
  }

  /** A reason to cut the pair, found by its timer. */
  private record Cut(CloseCause cause, String detail) {}

  /** Arms the timer for the soonest deadline, unless it is armed for one as soon already. */
  void schedule() {
    if (!pair.timed()) {
      return;
    }
    long due = nextCheckNanos();
    if (due == Long.MAX_VALUE) {
      return;
    }
    if (timer != null && dueNanos != 0 && dueNanos <= due) {
      return; // the timer already looks sooner
    }
    if (timer != null) {
      timer.cancel();
    }
    dueNanos = due;
    EventLoop loop = pair.client().loop();
    long delay = Math.max(0, due - loop.nanoTime());
    timer = loop.schedule(Duration.ofNanos(delay), this);
  }

  /** The settings changed (a reload): judge again from now, even if later than the armed time. */
  void reschedule() {
    dueNanos = 0;
    schedule();
  }

  /** The pair ended. */
  void cancel() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** The timer fired: cut the pair if a deadline passed, else arm for the next. */
  @Override
  public void run() {
    timer = null;
    dueNanos = 0;
    if (!pair.timed()) {
      return;
    }
    Cut cut = due(pair.owner().timeouts(), pair.client().loop().nanoTime());
    if (cut != null) {
      pair.close(cut.cause(), cut.detail(), false);
    } else {
      schedule();
    }
  }

  private long nextCheckNanos() {
    TimeoutSettings t = pair.owner().timeouts();
    long now = pair.client().loop().nanoTime();
    long due = Long.MAX_VALUE;
    long quietSince = busy() ? now : lastActivityNanos();
    if (!t.idle().isZero()) {
      due = Math.min(due, quietSince + t.idle().toNanos());
    }
    if (!t.halfClose().isZero() && pair.facts().firstEnded() != null) {
      due = Math.min(due, quietSince + t.halfClose().toNanos());
    }
    if (!t.maxConnectionDuration().isZero()) {
      due = Math.min(due, pair.facts().openedNanos() + t.maxConnectionDuration().toNanos());
    }
    if (!t.writeStall().isZero()) {
      due = Math.min(due, stallDue(pair.client(), t));
      due = Math.min(due, stallDue(pair.upstream(), t));
    }
    return due;
  }

  private static long stallDue(Leg sender, TimeoutSettings t) {
    long since = sender.stalledSinceNanos();
    return since == Long.MIN_VALUE ? Long.MAX_VALUE : since + t.writeStall().toNanos();
  }

  private Cut due(TimeoutSettings t, long now) {
    if (!t.maxConnectionDuration().isZero()
        && now - pair.facts().openedNanos() >= t.maxConnectionDuration().toNanos()) {
      return new Cut(CloseCause.MAX_DURATION, "older than " + t.maxConnectionDuration());
    }
    if (!t.writeStall().isZero()) {
      Cut stall = stall(pair.client(), t, now);
      if (stall == null) {
        stall = stall(pair.upstream(), t, now);
      }
      if (stall != null) {
        return stall;
      }
    }
    boolean quiet = !busy();
    long quietFor = now - lastActivityNanos();
    Side firstEnded = pair.facts().firstEnded();
    if (!t.halfClose().isZero()
        && firstEnded != null
        && quiet
        && quietFor >= t.halfClose().toNanos()) {
      return new Cut(
          CloseCause.HALF_CLOSE_TIMEOUT,
          "the "
              + Pair.side(firstEnded)
              + " ended and the other direction moved no bytes for "
              + Units.formatDuration(t.halfClose()));
    }
    if (!t.idle().isZero() && quiet && quietFor >= t.idle().toNanos()) {
      return new Cut(
          CloseCause.IDLE_TIMEOUT, "no bytes either way for " + Units.formatDuration(t.idle()));
    }
    return null;
  }

  private static Cut stall(Leg sender, TimeoutSettings t, long now) {
    long since = sender.stalledSinceNanos();
    if (since == Long.MIN_VALUE || now - since < t.writeStall().toNanos()) {
      return null;
    }
    Leg stalled = sender.peer();
    return new Cut(
        CloseCause.WRITE_STALL_TIMEOUT,
        "the "
            + Pair.side(stalled.side())
            + " took none of the "
            + stalled.connection().pendingWriteBytes()
            + " B pending for it in "
            + Units.formatDuration(t.writeStall()));
  }

  /** Bytes pending either way, or a leg held back: a pair that is not idle, however quiet. */
  private boolean busy() {
    return pair.client().busy() || pair.upstream().busy();
  }

  /** When bytes last moved on either leg. */
  long lastActivityNanos() {
    return Math.max(
        pair.client().connection().lastActivityNanos(),
        pair.upstream().connection().lastActivityNanos());
  }
}
