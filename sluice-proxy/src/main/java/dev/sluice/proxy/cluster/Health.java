package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.ClusterConfig;
import java.time.Duration;

/**
 * Whether an upstream may take new connections: the active check's verdict (rise consecutive passes
 * bring it up, fall failures take it down) and passive ejection (consecutive failures of real
 * connections take it out for a backoff that doubles while it keeps failing). An ejected upstream
 * comes back through the active check once its backoff is over, or, without a check, when the
 * backoff is over. A pure state machine on a clock the caller passes; thread-safe.
 */
public final class Health {
  /** What an upstream is, for new connections. */
  public enum State {
    UP,
    /** The active check failed {@code fall} times in a row. */
    DOWN,
    /** Passive ejection: out until its backoff is over. */
    EJECTED
  }

  private final ClusterConfig.HealthCheck check;
  private final ClusterConfig.PassiveHealth passive;
  private State state = State.UP;
  private int passes;
  private int failures;
  private int connectFailures;
  private long ejectedUntilNanos;
  private long backoffNanos;
  private long availableSinceNanos;
  private String lastProblem;

  public Health(
      ClusterConfig.HealthCheck check, ClusterConfig.PassiveHealth passive, long nowNanos) {
    this.check = check;
    this.passive = passive;
    this.backoffNanos = passive.backoff().toNanos();
    this.availableSinceNanos = nowNanos - Long.MAX_VALUE / 4; // up from the start: no slow start
  }

  /** The state now. */
  public synchronized State state(long nowNanos) {
    settle(nowNanos);
    return state;
  }

  /** Whether it may take a new connection now. */
  public synchronized boolean available(long nowNanos) {
    settle(nowNanos);
    return state == State.UP;
  }

  /** Since when it has been available (for slow start). */
  public synchronized long availableSinceNanos() {
    return availableSinceNanos;
  }

  /** What last went wrong, for logs and the status page; null when nothing did. */
  public synchronized String lastProblem() {
    return lastProblem;
  }

  /** Without an active check, an ejection ends by itself when its backoff is over. */
  private void settle(long now) {
    if (state == State.EJECTED && check == null && now - ejectedUntilNanos >= 0) {
      becomeUp(now);
    }
  }

  /**
   * An active check passed.
   *
   * @return whether this brought the upstream up
   */
  public synchronized boolean checkPassed(long nowNanos) {
    failures = 0;
    if (state == State.UP) {
      return false;
    }
    if (state == State.EJECTED && nowNanos - ejectedUntilNanos < 0) {
      passes = 0; // still in its backoff: passes count only after it
      return false;
    }
    if (++passes >= check.rise()) {
      becomeUp(nowNanos);
      return true;
    }
    return false;
  }

  /**
   * An active check failed.
   *
   * @return whether this took the upstream down
   */
  public synchronized boolean checkFailed(long nowNanos, String problem) {
    passes = 0;
    lastProblem = problem;
    if (state != State.UP) {
      return false;
    }
    if (++failures >= check.fall()) {
      state = State.DOWN;
      failures = 0;
      return true;
    }
    return false;
  }

  /** A real connection to it was made: the run of failures is over. */
  public synchronized void connectSucceeded() {
    connectFailures = 0;
    if (state == State.UP) {
      backoffNanos = passive.backoff().toNanos(); // it stayed up: the next ejection starts short
    }
  }

  /**
   * A real connection to it failed (refused, timed out, reset).
   *
   * @return whether this ejected it
   */
  public synchronized boolean connectFailed(long nowNanos, String problem) {
    lastProblem = problem;
    if (passive.failures() == 0 || state != State.UP) {
      return false;
    }
    if (++connectFailures < passive.failures()) {
      return false;
    }
    connectFailures = 0;
    state = State.EJECTED;
    passes = 0;
    ejectedUntilNanos = nowNanos + backoffNanos;
    backoffNanos = Math.min(backoffNanos * 2, passive.maxBackoff().toNanos());
    return true;
  }

  /** When the current ejection ends (meaningful while ejected). */
  public synchronized long ejectedUntilNanos() {
    return ejectedUntilNanos;
  }

  /** How long the next ejection would last. */
  public synchronized Duration nextBackoff() {
    return Duration.ofNanos(backoffNanos);
  }

  private void becomeUp(long now) {
    state = State.UP;
    passes = 0;
    failures = 0;
    connectFailures = 0;
    availableSinceNanos = now;
  }
}
