package dev.sluice.bench.child;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.AddressRange;
import org.junit.jupiter.api.Test;

/** The parsers of HotSpot's and glibc's diagnostic output, on text as JDK 25 prints it. */
class DiagnosticsParsingTest {

  @Test
  void nmtSummaryDiffGivesCommittedGrowthByCategory() {
    String text =
        """
        12345:

        Native Memory Tracking:

        (Omitting categories weighting less than 1KB)

        Total: reserved=2450720KB -7154KB, committed=427032KB +2048KB

        malloc=6520KB -7154KB #45557 -219

        -                 Java Heap (reserved=1048576KB, committed=387072KB)
                                    (mmap: reserved=1048576KB, committed=387072KB)

        -                      Code (reserved=248651KB +12KB, committed=8507KB +3000KB)
                                    (malloc=958KB #6804)

        -               Arena Chunk (reserved=1KB -9000KB, committed=1KB -1000KB)
                                    (malloc=1KB -9000KB #35 -270)

        -        Shared class space (reserved=16384KB, committed=13908KB, readonly=0KB)
        """;
    NativeMemoryDiff diff = NativeMemoryDiff.parse(text);
    assertThat(diff.totalCommittedGrowthBytes()).isEqualTo(2048 * 1024L);
    assertThat(diff.growth("Java Heap")).isZero();
    assertThat(diff.growth("Code")).isEqualTo(3000 * 1024L);
    assertThat(diff.growth("Arena Chunk")).isEqualTo(-1000 * 1024L);
    assertThat(diff.growth("Shared class space")).isZero();
    assertThat(diff.growth("Thread")).isZero(); // not listed: under 1 KB
  }

  @Test
  void withoutNmtTheDiffIsAClearError() {
    assertThatThrownBy(() -> NativeMemoryDiff.parse("Native memory tracking is not enabled"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an NMT summary.diff");
  }

  @Test
  void mallocInfoGivesTheTotalsAfterTheArenas() {
    String xml =
        """
        <malloc version="1">
        <heap nr="0">
        <sizes>
        </sizes>
        <total type="fast" count="0" size="0"/>
        <total type="rest" count="1" size="133184"/>
        <system type="current" size="299008"/>
        </heap>
        <total type="fast" count="3" size="300"/>
        <total type="rest" count="7" size="5000"/>
        <total type="mmap" count="2" size="1048576"/>
        <system type="current" size="900000"/>
        <system type="max" size="999999"/>
        <aspace type="total" size="900000"/>
        </malloc>
        """;
    MallocInfo info = MallocInfo.parse(xml);
    assertThat(info.arenaBytes()).isEqualTo(900_000);
    assertThat(info.freeBytes()).isEqualTo(5300);
    assertThat(info.mmapBytes()).isEqualTo(1_048_576);
    assertThat(info.inUseBytes()).isEqualTo(900_000 - 5300 + 1_048_576);
  }

  @Test
  void serialGcHeapInfoSpansBothGenerations() {
    String text =
        """
        DefNew     total 7424K, used 2022K [0x00000000c0000000, 0x00000000c0800000, 0x00000000c0800000)
         eden space 6656K,  18% used [0x00000000c0000000, 0x00000000c0139918, 0x00000000c0680000)
        Tenured    total 378880K, used 16140K [0x00000000c0800000, 0x00000000d7a00000, 0x0000000100000000)
         the  space 378880K,   4% used [0x00000000c0800000, 0x00000000c17c3368, 0x00000000d7a00000)
        """;
    assertThat(JvmLayout.span(text, "total"))
        .isEqualTo(new AddressRange(0xc0000000L, 0x100000000L));
  }

  @Test
  void g1HeapInfoHasOneRange() {
    String text =
        " garbage-first heap   total reserved 262144K, committed 16384K, used 1954K"
            + " [0x00000000f0000000, 0x0000000100000000)\n";
    assertThat(JvmLayout.span(text, "total"))
        .isEqualTo(new AddressRange(0xf0000000L, 0x100000000L));
  }

  @Test
  void codeCacheSpansEveryCodeHeap() {
    String text =
        """
        CodeHeap 'non-profiled nmethods': size=120036Kb used=355Kb max_used=355Kb free=119680Kb
         bounds [0x00007f437fec7000, 0x00007f4380137000, 0x00007f4387400000]
        CodeHeap 'profiled nmethods': size=120036Kb used=1699Kb max_used=1699Kb free=118336Kb
         bounds [0x00007f43783ff000, 0x00007f437866f000, 0x00007f437f938000]
        CodeHeap 'non-nmethods': size=5692Kb used=1239Kb max_used=1253Kb free=4452Kb
         bounds [0x00007f437f938000, 0x00007f437fba8000, 0x00007f437fec7000]
        """;
    assertThat(JvmLayout.span(text, "bounds"))
        .isEqualTo(new AddressRange(0x00007f43783ff000L, 0x00007f4387400000L));
  }

  @Test
  void thisJvmSaysWhereItsHeapAndCodeCacheAre() {
    JvmLayout layout = JvmLayout.now();
    assertThat(layout.javaHeap().end()).isGreaterThan(layout.javaHeap().start());
    assertThat(layout.codeCache().end()).isGreaterThan(layout.codeCache().start());
    assertThat(layout.javaHeap().overlaps(layout.codeCache().start(), layout.codeCache().end()))
        .isFalse();
  }

  @Test
  void compilerQueueIsIdleOnlyWithNothingRunningOrQueued() {
    String idle =
        """
        Current compiles:\s

        C1 compile queue:
        Empty

        C2 compile queue:
        Empty
        """;
    String busy =
        """
        Current compiles:\s
        C2 CompilerThread0    1234   4       sun.security.ssl.SSLEngineImpl::wrap (12 bytes)

        C1 compile queue:
        Empty

        C2 compile queue:
        Empty
        """;
    String queued =
        """
        Current compiles:\s

        C1 compile queue:
         1240   3       java.util.HashMap::get (19 bytes)

        C2 compile queue:
        Empty
        """;
    assertThat(JvmMemory.compilersIdle(idle)).isTrue();
    assertThat(JvmMemory.compilersIdle(busy)).isFalse();
    assertThat(JvmMemory.compilersIdle(queued)).isFalse();
  }
}
