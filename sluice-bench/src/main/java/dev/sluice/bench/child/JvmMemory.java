package dev.sluice.bench.child;

import java.lang.management.ManagementFactory;

/**
 * Heap figures taken inside a measured child, and the settling that makes them comparable between
 * arms.
 */
public final class JvmMemory {
  private static final int CHURN_BYTES = 64 << 20;

  @SuppressWarnings("unused") // written so the churn cannot be optimised away
  private static volatile Object sink;

  private JvmMemory() {}

  /**
   * Brings the JVM to the steady state a long-running server is in before a measurement: the young
   * generation has been cycled (and is therefore resident, as it is after any traffic), and a full
   * collection has just run. Both arms settle the same way, so neither pays for first touching the
   * young generation inside its measurement.
   */
  public static void settle() {
    for (int allocated = 0; allocated < CHURN_BYTES; allocated += 4096) {
      sink = new byte[4096 - 16];
    }
    sink = null;
    fullGc();
  }

  /** Runs full collections until used heap stops shrinking (at most a few). */
  public static void fullGc() {
    long before = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      long used = heapUsed();
      if (used >= before) {
        return;
      }
      before = used;
    }
  }

  /** Heap bytes in use now (after {@link #fullGc()}: the live heap). */
  public static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
