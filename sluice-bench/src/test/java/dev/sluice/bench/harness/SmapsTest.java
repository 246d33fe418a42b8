package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SmapsTest {
  /** Three mappings: a heap-like one, a code-cache-like one, a library. */
  private static final String SMAPS =
      """
      c0000000-c0800000 rw-p 00000000 00:00 0
      Size:               8192 kB
      Rss:                8000 kB
      Pss:                8000 kB
      Anonymous:          8000 kB
      VmFlags: rd wr mr mw me ac sd
      7f0000000000-7f0000100000 rwxp 00000000 00:00 0
      Size:               1024 kB
      Rss:                 300 kB
      Anonymous:           300 kB
      VmFlags: rd wr ex mr mw me ac sd
      7f1000000000-7f1000200000 r-xp 00000000 08:01 1234                       /usr/lib/libfoo.so
      Size:               2048 kB
      Rss:                 120 kB
      Anonymous:            20 kB
      VmFlags: rd ex mr mw me sd
      """;

  private static final AddressRange HEAP = AddressRange.parse("0xc0000000-0x100000000");
  private static final AddressRange CODE = AddressRange.parse("0x7f0000000000-0x7f0010000000");

  @Test
  void readsEveryMappingWithItsResidentBytes() {
    Smaps smaps = Smaps.parse(SMAPS);
    assertThat(smaps.mappings()).hasSize(3);
    assertThat(smaps.mappings().get(2).path()).isEqualTo("/usr/lib/libfoo.so");
    assertThat(smaps.mappings().get(0).path()).isEmpty();
    assertThat(smaps.rssBytes()).isEqualTo((8000 + 300 + 120) * 1024L);
  }

  @Test
  void splitsResidentBytesByRange() {
    Smaps smaps = Smaps.parse(SMAPS);
    assertThat(smaps.rssWithin(HEAP)).isEqualTo(8000 * 1024L);
    assertThat(smaps.rssWithin(CODE)).isEqualTo(300 * 1024L);
    List<AddressRange> both = List.of(HEAP, CODE);
    assertThat(smaps.anonymousOutside(both)).isEqualTo(20 * 1024L);
    assertThat(smaps.fileBackedOutside(both)).isEqualTo(100 * 1024L);
  }

  @Test
  void aMappingPartlyInsideARangeIsAnError() {
    Smaps smaps = Smaps.parse(SMAPS);
    assertThatThrownBy(() -> smaps.rssWithin(AddressRange.parse("0xc0400000-0xd0000000")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("partly inside");
  }

  @Test
  void aMappingWithoutRssIsAClearError() {
    assertThatThrownBy(() -> Smaps.parse("c0000000-c0800000 rw-p 00000000 00:00 0\nSize: 8 kB\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0xc0000000-0xc0800000");
  }

  @Test
  void addressRangesRoundTrip() {
    List<AddressRange> ranges = List.of(HEAP, CODE);
    assertThat(AddressRange.parseList(AddressRange.formatList(ranges))).isEqualTo(ranges);
    assertThat(AddressRange.parse("c0000000-100000000")).isEqualTo(HEAP);
  }

  @Test
  void readsThisProcessFromProc() throws Exception {
    Smaps self = Smaps.read(ProcessHandle.current().pid());
    assertThat(self.mappings()).isNotEmpty();
    assertThat(self.rssBytes()).isPositive();
  }
}
