package dev.sluice.bench.child;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * Heap figures taken inside a measured child, and the settling that makes them comparable between
 * arms.
 */
public final class JvmMemory {
  private static final int CHURN_BYTES = 64 << 20;

  /** One more than SerialGC's MarkSweepAlwaysCompactCount: one of them compacts fully. */
  private static final int FULL_GCS = 5;

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

  /**
   * Runs back-to-back full collections so that used heap afterwards is the live heap. One is not
   * enough with SerialGC: its full GC may leave up to {@code MarkSweepDeadRatio} (5%) of the old
   * generation as uncompacted dead space, which still counts as used, and only every {@code
   * MarkSweepAlwaysCompactCount}-th (4th) full GC compacts everything. Measured here: a 2.9 MB
   * warm-up that was already unreachable still showed in "used" after two collections.
   */
  public static void fullGc() {
    for (int i = 0; i < FULL_GCS; i++) {
      System.gc();
    }
  }

  /**
   * The live heap to the byte: a full GC, then every object left counted ({@link HeapHistogram}).
   * The first call in a process sets up the diagnostic-command machinery, which then stays live:
   * call it once before taking a baseline.
   */
  public static long liveHeapBytes() {
    return HeapHistogram.take().liveBytes();
  }

  /**
   * Waits until the JIT compilers have had nothing to do for a moment ({@code Compiler.queue}: no
   * compilation running, both queues empty, for {@value #QUIET_POLLS} polls {@value #POLL_MILLIS}
   * ms apart), at most {@code limitMillis}. A compilation in flight holds arena memory (C2's can
   * take megabytes) and adds code to the code cache: a reading taken during one counts it, one
   * taken a moment later does not.
   *
   * @return whether the compilers went quiet within the limit
   */
  public static boolean awaitQuietCompilers(long limitMillis) throws InterruptedException {
    long deadline = System.nanoTime() + limitMillis * 1_000_000;
    int quiet = 0;
    while (quiet < QUIET_POLLS) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      quiet = compilersIdle(DiagnosticCommands.run("compilerQueue")) ? quiet + 1 : 0;
      Thread.sleep(POLL_MILLIS);
    }
    return true;
  }

  private static final int QUIET_POLLS = 10;
  private static final int POLL_MILLIS = 20;

  /**
   * Whether {@code Compiler.queue}'s text shows no compilation running and nothing queued: every
   * line is a heading or "Empty".
   */
  static boolean compilersIdle(String queue) {
    for (String line : queue.split("\n")) {
      String l = line.strip();
      boolean heading =
          l.endsWith(":") && (l.startsWith("Current compiles") || l.contains("queue"));
      if (!(l.isEmpty() || heading || l.equals("Empty") || l.matches("\\d+:"))) {
        return false;
      }
    }
    return true;
  }

  /** Heap bytes in use now (after {@link #fullGc()}: the live heap). */
  public static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * The old generation's memory pool (SerialGC's {@code Tenured Gen}): what young collections
   * promote into, and what only a full collection empties, so its peak usage between two full
   * collections is its high-water mark.
   *
   * @throws IllegalStateException when the collector has no such pool
   */
  public static MemoryPoolMXBean oldGeneration() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .filter(p -> p.getName().contains("Tenured") || p.getName().contains("Old Gen"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no old-generation memory pool"));
  }
}
