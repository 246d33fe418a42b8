package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void oddCountTakesTheMiddleValueWhateverTheOrder() {
    assertThat(Stats.of(List.of(9.0, 1.0, 5.0, 7.0, 3.0))).isEqualTo(new Stats(5.0, 1.0, 9.0));
  }

  @Test
  void evenCountAveragesTheTwoMiddleValues() {
    assertThat(Stats.of(List.of(4.0, 1.0, 10.0, 2.0))).isEqualTo(new Stats(3.0, 1.0, 10.0));
  }

  @Test
  void oneValueIsItsOwnMedianMinAndMax() {
    assertThat(Stats.of(List.of(42.5))).isEqualTo(new Stats(42.5, 42.5, 42.5));
  }

  @Test
  void anOutlierMovesMaxButNotMedian() {
    Stats stats = Stats.of(List.of(100.0, 101.0, 99.0, 100.0, 5000.0));
    assertThat(stats.median()).isEqualTo(100.0);
    assertThat(stats.max()).isEqualTo(5000.0);
    assertThat(stats.min()).isEqualTo(99.0);
  }

  @Test
  void negativeValuesSortNumerically() {
    assertThat(Stats.of(List.of(-3.0, 2.0, -10.0))).isEqualTo(new Stats(-3.0, -10.0, 2.0));
  }

  @Test
  void noValuesIsAnError() {
    assertThatThrownBy(() -> Stats.of(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void armSummarySkipsFieldsARunDidNotReport() {
    List<Field> fields = List.of(new Field("a", Unit.COUNT, "a"), new Field("b", Unit.COUNT, "b"));
    ArmSummary arm =
        ArmSummary.of(
            Impl.SLUICE,
            fields,
            List.of(
                RunResult.ok(java.util.Map.of("a", 1.0)),
                RunResult.of(java.util.Map.of("a", 3.0), false, "byte 7 wrong")));
    assertThat(arm.stats()).containsOnlyKeys("a");
    assertThat(arm.median("a")).isEqualTo(2.0);
    assertThat(arm.median("b")).isNaN();
    assertThat(arm.integrityOk()).isFalse();
    assertThat(arm.failures()).containsExactly("byte 7 wrong");
  }
}
