package dev.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a cluster's names are looked up again: the back-off while one resolves to nothing. */
class DnsRefreshTest {

  private static List<Duration> unresolvedDelays(Duration interval, int count) {
    List<Duration> delays = new ArrayList<>();
    Duration retry = DnsRefresh.FIRST_RETRY;
    for (int i = 0; i < count; i++) {
      delays.add(DnsRefresh.delay(true, interval, retry));
      retry = DnsRefresh.nextRetry(retry);
    }
    return delays;
  }

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  @Test
  void anUnresolvedNameIsRetriedFromOneSecondDoublingToThirty() {
    assertThat(unresolvedDelays(Duration.ZERO, 8))
        .containsExactly(s(1), s(2), s(4), s(8), s(16), s(30), s(30), s(30));
  }

  @Test
  void theRetryIsNeverLaterThanTheResolveInterval() {
    assertThat(unresolvedDelays(s(5), 5)).containsExactly(s(1), s(2), s(4), s(5), s(5));
  }

  @Test
  void resolvedNamesAreLookedUpOnTheIntervalOrNotAtAll() {
    assertThat(DnsRefresh.delay(false, s(30), s(16))).isEqualTo(s(30));
    assertThat(DnsRefresh.delay(false, Duration.ZERO, s(16))).isNull();
  }
}
