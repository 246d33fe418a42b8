package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParamsTest {

  @Test
  void byteCountsTakeBinarySuffixes() {
    assertThat(Params.parseBytes("size", "1400")).isEqualTo(1400);
    assertThat(Params.parseBytes("size", "4k")).isEqualTo(4096);
    assertThat(Params.parseBytes("size", "16KiB")).isEqualTo(16384);
    assertThat(Params.parseBytes("size", "1m")).isEqualTo(1 << 20);
    assertThat(Params.parseBytes("size", "2MB")).isEqualTo(2 << 20);
    assertThat(Params.parseBytes("size", "1g")).isEqualTo(1L << 30);
  }

  @Test
  void aBadNumberNamesTheOption() {
    assertThatThrownBy(() -> Params.parseBytes("chunks", "lots"))
        .hasMessageContaining("--chunks")
        .hasMessageContaining("lots");
    assertThatThrownBy(() -> Params.parseBytes("chunks", "-5")).hasMessageContaining("--chunks");
  }

  @Test
  void travelToAChildAndBackUnchanged() {
    Params params = Params.of(Map.of("sizes", "512,4096", "mib", "8"));
    Params back = Params.fromArgs(params.toArgs());
    assertThat(back.asMap()).isEqualTo(params.asMap());
    assertThat(back.byteList("sizes")).containsExactly(512L, 4096L);
  }

  @Test
  void aMissingOptionIsNamed() {
    assertThatThrownBy(() -> Params.fromArgs(List.of()).string("size"))
        .hasMessageContaining("--size");
  }
}
