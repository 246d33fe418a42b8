package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** The JSON the admin listener and the access log write: escaping, numbers, records, nesting. */
class JsonTest {
  record Inner(String name, double rate, List<Integer> items) {}

  record Outer(Inner inner, Map<String, Long> counts, Boolean flag, Object nothing) {}

  @Test
  void writesRecordsMapsListsAndNumbersAParserReadsBack() {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("b", 2L);
    counts.put("a", 1L);
    String json = Json.write(new Outer(new Inner("x", 2.5, List.of(1, 2)), counts, true, null));
    assertThat(json)
        .isEqualTo(
            "{\"inner\":{\"name\":\"x\",\"rate\":2.5,\"items\":[1,2]},"
                + "\"counts\":{\"b\":2,\"a\":1},\"flag\":true,\"nothing\":null}");
    assertThat(parse(json)).isInstanceOf(Map.class);
  }

  @Test
  void everyCharacterThatNeedsEscapingIsEscapedAndRoundTrips() {
    StringBuilder all = new StringBuilder("quote\" backslash\\ slash/ ");
    for (char c = 0; c < 0x20; c++) {
      all.append(c);
    }
    all.append('\u2028').append('\u2029').append("é ✓ \uD83D\uDE00");
    String json = Json.write(Map.of("s", all.toString()));
    assertThat(json).doesNotContainPattern("[\\x00-\\x1f]");
    assertThat(((Map<?, ?>) parse(json)).get("s")).isEqualTo(all.toString());
  }

  @Test
  void wholeAndNonFiniteDoublesAreWrittenAsJsonCanHoldThem() {
    assertThat(Json.write(3.0)).isEqualTo("3");
    assertThat(Json.write(0.25)).isEqualTo("0.25");
    assertThat(Json.write(Double.NaN)).isEqualTo("null");
    assertThat(Json.write(Double.POSITIVE_INFINITY)).isEqualTo("null");
    assertThat(Json.write(1e300)).isEqualTo("1.0E300");
    assertThat(parse(Json.write(List.of(1e300, -0.5)))).isEqualTo(List.of(1e300, -0.5));
  }

  private static Object parse(String json) {
    return new Load(LoadSettings.builder().build()).loadFromString(json);
  }
}
