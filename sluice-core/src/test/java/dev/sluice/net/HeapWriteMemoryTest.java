package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.ChildJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seed 001 and the JDK's own version of it: a 256 MiB heap buffer written in one call must reach
 * the socket in slices through the loop's staging buffer, never be handed whole to {@code
 * SocketChannel.write}, which would copy all of it into a temporary native buffer and keep that
 * cached on the loop thread.
 *
 * <p>Three views of native memory, in a fresh JVM with native memory tracking on: Sluice's own
 * counters (the staging buffer and one read slab may appear); the JDK's {@code direct} buffer pool
 * (where older JDKs put that temporary copy); and NMT's "Other" category (where JDK 25 puts it,
 * allocated with {@code Unsafe} and invisible to the buffer pool).
 */
class HeapWriteMemoryTest {
  private static final int PAYLOAD = 256 << 20;

  /** Room for slabs, the staging buffer and the JDK's small allocations; a copy is 256 MiB. */
  private static final long NATIVE_SLACK = 8 << 20;

  @Test
  void aQuarterGibibyteHeapWriteAddsOnlyTheStagingBuffer() throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(
            Duration.ofMinutes(2),
            List.of(
                "-Xmx1g", "-XX:NativeMemoryTracking=summary", "--enable-native-access=ALL-UNNAMED"),
            HeapWriteMemoryProbe.class,
            String.valueOf(PAYLOAD));
    assertThat(run.exitCode()).as("%s", run).isZero();
    assertThat(run.results()).containsEntry("integrity", "OK");
    assertThat(run.number("bytes")).isEqualTo(PAYLOAD);

    assertThat(run.number("sluiceNativeGrowth"))
        .as("Sluice's native memory growth while writing 256 MiB from the heap")
        .isLessThanOrEqualTo(run.number("stagingBytes") + run.number("slabBytes"));
    assertThat(run.number("pendingCopyPeak")).as("bytes copied to queue").isZero();
    assertThat(run.number("directPoolGrowth"))
        .as("JDK direct buffer pool growth while writing 256 MiB from the heap")
        .isLessThan(NATIVE_SLACK);
    assertThat(run.number("nmtOtherGrowth"))
        .as("NMT 'Other' growth while writing 256 MiB from the heap")
        .isLessThan(NATIVE_SLACK);
  }
}
