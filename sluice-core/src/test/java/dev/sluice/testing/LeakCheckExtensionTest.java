package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sluice.internal.MemoryCounters;
import dev.sluice.internal.ReadSlab;
import dev.sluice.internal.SlabPool;
import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.LeakTracker;
import dev.sluice.memory.SlabChunk;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** The leak check is on in this module and fails a test that keeps a handed-off chunk. */
class LeakCheckExtensionTest {

  @Test
  void leakTrackingIsOnInTheTestSuite() {
    assertThat(LeakTracker.enabled())
        .as("-Dsluice.leakTracking=true must be set for the tests (surefire's argLine sets it)")
        .isTrue();
  }

  @Test
  void aTestThatEndsWithAHandedOffChunkFails() {
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(LeakyExample.class))
            .build();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(request, summary);
    try {
      TestExecutionSummary result = summary.getSummary();
      assertThat(result.getTestsSucceededCount()).isZero();
      assertThat(result.getFailures()).hasSize(1);
      Throwable failure = result.getFailures().getFirst().getException();
      assertThat(failure)
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("left 2 slab(s), chunk(s) or descriptor(s) live")
          .hasMessageContaining("handed-off SlabChunk[40000 B of a 65536 B slab]");
      assertThat(failure.getCause()).hasMessage("created here");
      assertThat(LeakTracker.live()).as("reported leaks are forgotten").isEmpty();
    } finally {
      LeakyExample.leaked.release();
      LeakyExample.pool.close();
    }
  }

  @Test
  void aTestThatEndsWithASocketOpenFails() throws Exception {
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(LeakyFdExample.class))
                .build(),
            summary);
    try {
      assertThat(summary.getSummary().getFailures()).hasSize(1);
      assertThat(summary.getSummary().getFailures().getFirst().getException())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("left 1 descriptor(s) open")
          .hasMessageContaining("socket:[");
    } finally {
      LeakyFdExample.leaked.close();
    }
  }

  /** Run only through the launcher above (surefire skips nested classes). */
  static class LeakyFdExample {
    static ServerSocketChannel leaked;

    @Test
    void keepsASocketOpen() throws Exception {
      leaked = ServerSocketChannel.open();
    }
  }

  /** Run only through the launcher above (surefire skips nested classes). */
  static class LeakyExample {
    static SlabPool pool;
    static Chunk leaked;

    @Test
    void keepsAHandedOffChunk() {
      pool = new SlabPool(64 * 1024, 1, new MemoryCounters(), Runnable::run);
      pool.bindToCurrentThread();
      ReadSlab slab = new ReadSlab(pool, 32 * 1024);
      ByteBuffer target = slab.prepareRead();
      target.put(new byte[40_000]);
      BorrowedBytes read = slab.borrow(40_000);
      leaked = read.take();
      slab.endBorrow();
      assertThat(leaked).isInstanceOf(SlabChunk.class);
    }
  }
}
