package dev.sluice.proxy.limit;

/**
 * A token bucket: {@code rate} tokens a second, at most {@code burst} saved up. Lock-free enough
 * for an accept path: one synchronized step per new connection, on a clock the caller passes.
 */
public final class TokenBucket {
  private final double ratePerNano;
  private final double burst;
  private double tokens;
  private long lastNanos;

  /** A full bucket: a new limit lets its burst through at once. */
  public TokenBucket(int ratePerSecond, int burst, long nowNanos) {
    this(ratePerSecond, burst, Math.max(1, burst), nowNanos);
  }

  private TokenBucket(int ratePerSecond, int burst, double tokens, long nowNanos) {
    this.ratePerNano = ratePerSecond / 1e9;
    this.burst = Math.max(1, burst);
    this.tokens = Math.min(this.burst, tokens);
    this.lastNanos = nowNanos;
  }

  /**
   * This bucket at a new rate and burst (a reload changed them): it keeps the tokens saved up until
   * now, at most the new burst, and is never refilled by the change, so that editing a limit never
   * lets more through than either limit would have.
   */
  public synchronized TokenBucket withRate(int ratePerSecond, int burst, long nowNanos) {
    refill(nowNanos);
    return new TokenBucket(ratePerSecond, burst, tokens, nowNanos);
  }

  /** Takes one token if there is one. */
  public synchronized boolean tryTake(long nowNanos) {
    refill(nowNanos);
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed * ratePerNano);
      lastNanos = nowNanos;
    }
  }
}
