package dev.sluice.bench.workload.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How a wrk run's totals are read and judged. */
class WrkResultTest {
  private static final String GOOD =
      "Running 1s test @ http://127.0.0.1:1/\n"
          + "WRK requests=1000 bytes=212000 durationUs=1000000 connectErrors=0 readErrors=0"
          + " writeErrors=0 statusErrors=0 timeouts=0 checked=1000 bad=0 p50Us=800 p99Us=4000\n";

  @Test
  void aRunWhoseEveryResponseWasCheckedAndRightPasses() {
    WrkResult result = WrkResult.parse(GOOD);
    assertThat(result.failure(true)).isNull();
    assertThat(result.requestsPerSec()).isEqualTo(1000.0);
    assertThat(result.p99Us()).isEqualTo(4000.0);
  }

  @Test
  void aWrongResponseFailsAndIsNamed() {
    WrkResult result =
        WrkResult.parse(GOOD.replace("bad=0", "bad=2") + "WRKFIRSTBAD status 502, 0 body bytes\n");
    assertThat(result.failure(false)).contains("2 of 1000", "status 502, 0 body bytes");
  }

  @Test
  void socketErrorsAndUncheckedResponsesFail() {
    assertThat(WrkResult.parse(GOOD.replace("readErrors=0", "readErrors=1")).failure(true))
        .contains("1 socket errors");
    assertThat(WrkResult.parse(GOOD.replace("checked=1000", "checked=999")).failure(true))
        .contains("its check saw 999");
  }

  @Test
  void noRequestFailsOnlyAMeasuredRun() {
    String none = GOOD.replace("requests=1000", "requests=0").replace("checked=1000", "checked=0");
    assertThat(WrkResult.parse(none).failure(true)).contains("no request");
    assertThat(WrkResult.parse(none).failure(false)).isNull();
  }

  @Test
  void outputWithoutTheLineIsAnError() {
    assertThatThrownBy(() -> WrkResult.parse("unable to connect\n"))
        .hasMessageContaining("no WRK line");
  }

  @Test
  void theScriptChecksTheExactBody() {
    assertThat(WrkLoad.script("abc123"))
        .contains("local expected = \"abc123\"", "body ~= expected");
    assertThatThrownBy(() -> WrkLoad.script("a\"b")).isInstanceOf(IllegalArgumentException.class);
  }
}
