package dev.sluice.proxy.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.Limits;
import dev.sluice.proxy.forward.CloseCause;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A listener's admission across a reload that changes its limits. */
class AdmissionTest {
  private static Limits limits(int perSecond, int burst, int perSource) {
    return new Limits(perSecond, burst, perSource, List.of(), List.of(), false);
  }

  @Test
  void theCountsPerAddressGoOnAndTheEndsOfEarlierClientsReleaseThem() {
    Admission before = new Admission(limits(0, 0, 1));
    InetSocketAddress first = new InetSocketAddress("127.0.0.1", 40001);
    assertThat(before.byAddress(first)).isNull();

    Admission after = before.reconfigured(limits(100, 100, 1));
    InetSocketAddress second = new InetSocketAddress("127.0.0.1", 40002);
    assertThat(after.byAddress(second)).isEqualTo(CloseCause.SOURCE_LIMIT);
    before.release(first); // the first client ends through the admission that counted it
    assertThat(after.byAddress(second)).isNull();
    assertThat(after.trackedAddresses()).isOne();
  }

  @Test
  void aRateWhoseBurstGrewLetsNoFreshBurstThrough() {
    Admission before = new Admission(limits(1, 1, 0));
    assertThat(before.byRate()).isNull();
    Admission after = before.reconfigured(limits(1, 1000, 0));
    int let = 0;
    for (int i = 0; i < 1000; i++) {
      if (after.byRate() == null) {
        let++;
      }
    }
    // A fresh bucket would let all 1,000 through; the carried one only what 1/s refilled since.
    assertThat(let).isLessThan(100);
  }

  @Test
  void unchangedLimitsKeepTheSameAdmission() {
    Admission admission = new Admission(limits(5, 10, 2));
    assertThat(admission.reconfigured(limits(5, 10, 2))).isSameAs(admission);
  }
}
