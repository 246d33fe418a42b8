package dev.sluice.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reading the JVM's Native Memory Tracking summary, as JDK 25 prints it with scale=KB. */
class NativeMemoryTest {
  private static final String SUMMARY =
      """

      Native Memory Tracking:

      (Omitting categories weighting less than 1KB)

      Total: reserved=7741006KB, committed=486646KB
             malloc: 18138KB #53776, peak=21595KB #53596
             mmap:   reserved=7722868KB, committed=468508KB

      -                 Java Heap (reserved=6172672KB, committed=393216KB)
                                  (mmap: reserved=6172672KB, committed=393216KB, at peak)

      -                     Class (reserved=1048810KB, committed=1770KB)
                                  (classes #3504)

      -                    Thread (reserved=18490KB, committed=782KB)
                                  (threads #18)
      """;

  @Test
  void everyCategoryWithTheTotalFirstInBytes() {
    var parsed = NativeMemory.parse(SUMMARY);
    assertThat(parsed.keySet()).containsExactly("Total", "Java Heap", "Class", "Thread");
    assertThat(parsed.get("Total").committedBytes()).isEqualTo(486646L * 1024);
    assertThat(parsed.get("Java Heap").reservedBytes()).isEqualTo(6172672L * 1024);
    assertThat(parsed.get("Thread").committedBytes()).isEqualTo(782L * 1024);
  }

  @Test
  void whatIsNotASummaryGivesNothing() {
    assertThat(NativeMemory.parse("Native memory tracking is not enabled\n")).isEmpty();
    assertThat(NativeMemory.parse("")).isEmpty();
  }

  @Test
  void thisTestJvmTracksNothingAndSaysSo() {
    assertThat(NativeMemory.enabled()).isFalse();
    assertThat(NativeMemory.summary()).isEmpty();
  }
}
