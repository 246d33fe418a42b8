package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Durations and sizes as the configuration spells them, and what is refused with what words. */
class UnitsTest {

  // ---- durations ----

  @Test
  void parsesEveryDurationUnit() {
    assertThat(Units.duration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Units.duration("1ms")).isEqualTo(Duration.ofMillis(1));
    assertThat(Units.duration("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(Units.duration("1m")).isEqualTo(Duration.ofMinutes(1));
    assertThat(Units.duration("90m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Units.duration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Units.duration("2d")).isEqualTo(Duration.ofDays(2));
    assertThat(Units.duration("05s")).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void noneIsNoTimeout() {
    assertThat(Units.duration("none")).isEqualTo(Duration.ZERO);
    assertThat(Units.duration("  none ")).isEqualTo(Duration.ZERO);
  }

  @Test
  void surroundingWhitespaceIsIgnored() {
    assertThat(Units.duration(" 5s\t")).isEqualTo(Duration.ofSeconds(5));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0s", "0ms", "0m", "0h", "0d", "000s"})
  void aZeroDurationSaysToUseNone(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining("use none");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "5 s",
        "5sec",
        "5S",
        "5",
        "s",
        "",
        "-1s",
        "+1s",
        "1.5s",
        "1e3ms",
        "5s5",
        "1h30m",
        "None",
        "five seconds",
        "5us",
        "5ns",
        "5w"
      })
  void malformedDurationsAreRefusedSayingWhatIsAccepted(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "' is not a duration")
        .hasMessageContaining("ms, s, m, h or d")
        .hasMessageContaining("none");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "9999999999999999999d", // not a long at all
        "9999999999999999999ms",
        "9223372036854775807m", // a long, but not as minutes
        "9223372036854775807h",
        "106751991167301d", // just past Long.MAX_VALUE seconds
      })
  void overflowingDurationsAreTooLarge(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }

  @Test
  void theLargestRepresentableDurationsParse() {
    assertThat(Units.duration("9223372036854775807ms"))
        .isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
    assertThat(Units.duration("9223372036854775807s"))
        .isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(Units.duration("106751991167300d")).isEqualTo(Duration.ofDays(106751991167300L));
  }

  @ParameterizedTest
  @CsvSource({
    "0, none",
    "250, 250ms",
    "1000, 1s",
    "1500, 1500ms",
    "60000, 1m",
    "90000, 90s",
    "3600000, 1h",
    "5400000, 90m",
    "86400000, 1d",
    "172800000, 2d",
    "90000000, 25h"
  })
  void formatsDurationsInTheLargestExactUnit(long millis, String text) {
    assertThat(Units.formatDuration(Duration.ofMillis(millis))).isEqualTo(text);
  }

  @Test
  void aFormattedDurationParsesBackToItself() {
    Random random = new Random(0x5EED_0001L);
    long[] units = {1, 1000, 60_000, 3_600_000, 86_400_000};
    for (int i = 0; i < 2000; i++) {
      long millis = (1 + random.nextInt(100_000)) * units[random.nextInt(units.length)];
      Duration d = Duration.ofMillis(millis);
      assertThat(Units.duration(Units.formatDuration(d))).as("%s", d).isEqualTo(d);
    }
  }

  // ---- sizes ----

  @Test
  void parsesEverySizeUnit() {
    assertThat(Units.size("512")).isEqualTo(512);
    assertThat(Units.size("512B")).isEqualTo(512);
    assertThat(Units.size("0")).isZero();
    assertThat(Units.size("64KiB")).isEqualTo(64 * 1024);
    assertThat(Units.size("256MiB")).isEqualTo(256L << 20);
    assertThat(Units.size("1GiB")).isEqualTo(1L << 30);
    assertThat(Units.size("3GiB")).isEqualTo(3L << 30);
    assertThat(Units.size(" 64KiB ")).isEqualTo(64 * 1024);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "64KB", "64kib", "64kb", "64K", "64k", "64MB", "1GB", "1TiB", "-1", "-1B", "1.5KiB", "KiB",
        "", "B", "0x10", "64KiBs", "sixty"
      })
  void malformedSizesAreRefusedSayingWhatIsAccepted(String text) {
    assertThatThrownBy(() -> Units.size(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "' is not a size")
        .hasMessageContaining("B, KiB, MiB or GiB");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "99999999999GiB",
        "8589934592GiB", // Long.MAX_VALUE >> 30, plus one
        "8796093022208MiB", // Long.MAX_VALUE >> 20, plus one
        "9007199254740992KiB", // Long.MAX_VALUE >> 10, plus one
        "9223372036854775808", // Long.MAX_VALUE + 1
        "99999999999999999999B"
      })
  void overflowingSizesAreTooLarge(String text) {
    assertThatThrownBy(() -> Units.size(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "' is too large");
  }

  @Test
  void theLargestRepresentableSizesParse() {
    assertThat(Units.size("8589934591GiB")).isEqualTo(8589934591L << 30);
    assertThat(Units.size("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    assertThat(Units.size("9223372036854775807B")).isEqualTo(Long.MAX_VALUE);
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0B",
    "1000, 1000B",
    "1024, 1KiB",
    "1536, 1536B",
    "65536, 64KiB",
    "1048576, 1MiB",
    "1572864, 1536KiB",
    "268435456, 256MiB",
    "1073741824, 1GiB",
    "5368709120, 5GiB"
  })
  void formatsSizesInTheLargestExactUnit(long bytes, String text) {
    assertThat(Units.formatSize(bytes)).isEqualTo(text);
  }

  @Test
  void aFormattedSizeParsesBackToItself() {
    Random random = new Random(0x5EED_0002L);
    for (int i = 0; i < 2000; i++) {
      long bytes = (random.nextLong() >>> 1) >>> random.nextInt(63);
      if (random.nextBoolean()) {
        bytes = bytes >>> 30 << (10 * random.nextInt(4));
      }
      assertThat(Units.size(Units.formatSize(bytes))).as("%d", bytes).isEqualTo(bytes);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0us",
    "999999, 999us",
    "1000000, 1.0ms",
    "12345678, 12.3ms",
    "4100000000, 4.1s",
    "192000000000, 3m12s",
    "7500000000000, 2h05m",
    "273600000000000, 3d04h"
  })
  void formatsSpansForPeople(long nanos, String text) {
    assertThat(Units.formatNanos(nanos)).isEqualTo(text);
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0B",
    "1023, 1023B",
    "1024, 1.00KiB",
    "1536, 1.50KiB",
    "123456, 121KiB",
    "67108864, 64.0MiB",
    "1099511627776, 1.00TiB"
  })
  void formatsSizesForPeople(long bytes, String text) {
    assertThat(Units.formatBytes(bytes)).isEqualTo(text);
  }
}
