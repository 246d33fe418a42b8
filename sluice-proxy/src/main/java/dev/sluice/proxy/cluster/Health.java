package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.ClusterConfig;
import java.time.Duration;

/**
 * Whether an upstream may take new connections: the active check's verdict (rise consecutive passes
 * bring it up, fall failures take it down) and passive ejection (consecutive failures of real
 * connections take it out for a backoff that doubles while it keeps failing). An ejected upstream
 * comes back through the active check once its backoff is over, or, without a check, when the
 * backoff is over. Whether its cluster can spare it is the caller's to say. A pure state machine on
 * a clock the caller passes; thread-safe.
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

  /** What failed, for passive ejection. */
  public enum Failure {
    /** A connect: refused, timed out, or its TLS handshake failed. */
    CONNECT,
    /** A connection the upstream reset before any byte moved either way. */
    RESET_BEFORE_ANY_BYTE
  }

  /** What a failure of a real connection did. */
  public enum Verdict {
    /** Counted towards an ejection (or passive ejection is off, or it is out already). */
    COUNTED,
    /** It ejected the upstream. */
    EJECTED,
    /** It would have ejected the upstream, but the cluster needs it in service. */
    KEPT
  }

  // Settings, replaced when a reload carries this state over to a cluster's new configuration.
  private ClusterConfig.HealthCheck check;
  private ClusterConfig.PassiveHealth passive;
  private State state = State.UP;
  private int passes;
  private int failures;
  private int connectFailures;
  private int quietResets;
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

  /**
   * Takes the settings of a reloaded cluster, keeping the state: a down upstream stays down, an
   * ejected one out for the rest of its backoff. Without an active check any more, nothing could
   * bring a down upstream back, so it is up.
   */
  public synchronized void reconfigure(
      ClusterConfig.HealthCheck check, ClusterConfig.PassiveHealth passive, long nowNanos) {
    long first = passive.backoff().toNanos();
    boolean wasFirst = backoffNanos == this.passive.backoff().toNanos();
    this.check = check;
    this.passive = passive;
    backoffNanos =
        wasFirst ? first : Math.max(first, Math.min(backoffNanos, passive.maxBackoff().toNanos()));
    if (check == null && state == State.DOWN) {
      becomeUp(nowNanos);
    }
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

  /** A real connection to it was made: the run of failed connects is over. */
  public synchronized void connectSucceeded() {
    connectFailures = 0;
    if (state == State.UP) {
      backoffNanos = passive.backoff().toNanos(); // it stayed up: the next ejection starts short
    }
  }

  /**
   * A connection to it ended other than by a reset before any byte: the run of such resets is over.
   */
  public synchronized void connectionServed() {
    quietResets = 0;
  }

  /**
   * A real connection to it failed; {@code mayEject} says whether its cluster can spare it. Each
   * kind of failure has its own run, ended by its own kind of success (a connect that succeeds does
   * not end a run of resets: each of those connections did connect first). One that cannot be
   * spared stays in with its run full, so that the next failure ejects it once the cluster can.
   */
  public synchronized Verdict failed(
      Failure kind, long nowNanos, String problem, boolean mayEject) {
    lastProblem = problem;
    if (passive.failures() == 0 || state != State.UP) {
      return Verdict.COUNTED;
    }
    int run =
        switch (kind) {
          case CONNECT -> connectFailures = Math.min(connectFailures + 1, passive.failures());
          case RESET_BEFORE_ANY_BYTE -> quietResets = Math.min(quietResets + 1, passive.failures());
        };
    if (run < passive.failures()) {
      return Verdict.COUNTED;
    }
    if (!mayEject) {
      return Verdict.KEPT;
    }
    connectFailures = 0;
    quietResets = 0;
    state = State.EJECTED;
    passes = 0;
    ejectedUntilNanos = nowNanos + backoffNanos;
    backoffNanos = Math.min(backoffNanos * 2, passive.maxBackoff().toNanos());
    return Verdict.EJECTED;
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
    quietResets = 0;
    availableSinceNanos = now;
  }
}
