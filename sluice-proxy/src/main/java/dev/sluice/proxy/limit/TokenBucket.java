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

  public TokenBucket(int ratePerSecond, int burst, long nowNanos) {
    this.ratePerNano = ratePerSecond / 1e9;
    this.burst = Math.max(1, burst);
    this.tokens = this.burst;
    this.lastNanos = nowNanos;
  }

  /** Takes one token if there is one. */
  public synchronized boolean tryTake(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed * ratePerNano);
      lastNanos = nowNanos;
    }
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }
}
