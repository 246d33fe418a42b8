package dev.sluice.bench.proxy;

import dev.sluice.bench.child.HeapHistogram;
import dev.sluice.bench.harness.Impl;
import java.io.IOException;
import java.time.Duration;

/**
 * The proxy's memory at one moment, read from outside it once it has settled: VmRSS from {@code
 * /proc/PID/status} (summed over its processes: {@link ProxyProcess#rssBytes}); for a JVM arm also
 * its live heap ({@code jcmd PID GC.class_histogram}: a full GC, then every live object counted,
 * which happens after RSS is read, so that the reading does not include what the measurement itself
 * costs); for HAProxy the bytes in use in its memory pools.
 *
 * @param rssBytes VmRSS
 * @param heap the live heap by class, or null (not a JVM)
 * @param poolUsedBytes HAProxy's {@code PoolUsed_bytes}, or -1 (not HAProxy)
 */
public record ProxyMemory(long rssBytes, HeapHistogram heap, long poolUsedBytes) {

  /**
   * How long memory a JVM has freed can stay out of its C heap: freed arena chunks (the compilers',
   * a heap histogram's) wait in a pool that a periodic task empties every 5 s. Read before that,
   * the C heap of a proxy with 3,000 parked pairs held 10 MiB of a histogram's chunks (Native
   * Memory Tracking, "Arena Chunk"), 3.3 KiB a pair that the proxy never uses; a baseline read 2 s
   * after the warm-up held the compiler's, and growth came out negative.
   */
  private static final Duration ARENA_POOL_PERIOD = Duration.ofMillis(5_500);

  /**
   * RSS readings of a JVM, one {@link #ARENA_POOL_PERIOD} apart, of which the lowest counts. With
   * one reading, 2 to 3 of 5 proxyidle runs of 9,000 pairs read 10-12 MiB higher than the others
   * (1.1-1.5 KiB a pair, or 2.3-2.8): HotSpot arena chunks in use or pooled at that moment (Native
   * Memory Tracking: 9 MiB of "Arena Chunk" at a high reading, none at the low ones), a transient
   * that comes and goes between runs of one build. What the pairs hold is in every reading. A run
   * asked not to settle ({@code --settle-ms 0}, as the smoke tests run) reads once.
   */
  private static final int JVM_READINGS = 3;

  /**
   * Lets the proxy settle for {@code settle}, then reads its memory: RSS first, then the heap
   * histogram. A JVM first runs a full collection ({@code jcmd PID GC.run}) and is read {@link
   * #ARENA_POOL_PERIOD} after it: objects that died in the old generation (a TLS handshake's,
   * promoted while thousands ran) are not a parked pair's memory, and the collector gives back heap
   * it no longer needs (a parked TLS pair's RSS read 16.3 KiB without it, 15.3 with it). When the
   * JVM arms' flags trim the C heap periodically ({@code -XX:TrimNativeHeapInterval}, as
   * sluice-proxy/jvm.options ships), the harness trims it right before RSS is read ({@code jcmd PID
   * System.trim_native_heap}), so that a reading does not depend on where the 5-second period
   * happens to fall: without it a baseline could still hold malloc garbage a later reading has
   * returned. A JVM is read {@link #JVM_READINGS} times so, and the lowest reading counts.
   */
  public static ProxyMemory settleAndRead(ProxyProcess proxy, Duration settle)
      throws IOException, InterruptedException {
    Thread.sleep(settle);
    long rss;
    if (proxy.jvm()) {
      Jcmd.run(proxy, "GC.run");
      rss = Long.MAX_VALUE;
      int readings = settle.isZero() ? 1 : JVM_READINGS;
      for (int i = 0; i < readings; i++) {
        Thread.sleep(ARENA_POOL_PERIOD);
        if (ProxyArms.trimsNativeHeap()) {
          Jcmd.run(proxy, "System.trim_native_heap");
        }
        rss = Math.min(rss, proxy.rssBytes());
      }
    } else {
      rss = proxy.rssBytes();
    }
    long pools = proxy.impl() == Impl.HAPROXY ? HaproxyArm.poolUsedBytes(proxy) : -1;
    HeapHistogram heap = proxy.jvm() ? Jcmd.histogram(proxy) : null;
    return new ProxyMemory(rss, heap, pools);
  }

  /** Live heap bytes, or -1 when not a JVM. */
  public long heapBytes() {
    return heap == null ? -1 : heap.liveBytes();
  }
}
