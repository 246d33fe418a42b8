package dev.sluice.proxy.limit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The token bucket on a clock the test drives. */
class TokenBucketTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aBucketLetsItsBurstThroughThenItsRate() {
    TokenBucket bucket = new TokenBucket(2, 3, 0);
    assertThat(takes(bucket, 0, 10)).isEqualTo(3);
    assertThat(takes(bucket, SECOND, 10)).isEqualTo(2);
    assertThat(takes(bucket, 100 * SECOND, 10)).as("at most the burst saved up").isEqualTo(3);
  }

  @Test
  void aChangedRateGrantsNoFreshBurst() {
    TokenBucket bucket = new TokenBucket(1, 2, 0);
    assertThat(takes(bucket, 0, 10)).isEqualTo(2);
    TokenBucket faster = bucket.withRate(10, 50, SECOND / 100);
    assertThat(takes(faster, SECOND / 100, 10)).as("what was saved up: nothing").isZero();
    assertThat(takes(faster, SECOND / 100 + SECOND, 100)).as("the new rate").isEqualTo(10);
  }

  @Test
  void aSmallerBurstCapsWhatWasSavedUp() {
    TokenBucket bucket = new TokenBucket(1, 20, 0);
    assertThat(bucket.tryTake(0)).isTrue();
    TokenBucket smaller = bucket.withRate(1, 5, 0);
    assertThat(takes(smaller, 0, 100)).isEqualTo(5);
  }

  private static int takes(TokenBucket bucket, long nowNanos, int tries) {
    int taken = 0;
    for (int i = 0; i < tries; i++) {
      if (bucket.tryTake(nowNanos)) {
        taken++;
      }
    }
    return taken;
  }
}
