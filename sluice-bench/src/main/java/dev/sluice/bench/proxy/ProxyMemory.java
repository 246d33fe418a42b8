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
   * Lets the proxy settle for {@code settle}, then reads its memory: RSS first, then the heap
   * histogram. A JVM first runs a full collection ({@code jcmd PID GC.run}) and is read {@link
   * #ARENA_POOL_PERIOD} after it: objects that died in the old generation (a TLS handshake's,
   * promoted while thousands ran) are not a parked pair's memory, and the collector gives back heap
   * it no longer needs (a parked TLS pair's RSS read 16.3 KiB without it, 15.3 with it). When the
   * JVM arms' flags trim the C heap periodically ({@code -XX:TrimNativeHeapInterval}, as
   * sluice-proxy/jvm.options ships), the harness trims it right before RSS is read ({@code jcmd PID
   * System.trim_native_heap}), so that a reading does not depend on where the 5-second period
   * happens to fall: without it a baseline could still hold malloc garbage a later reading has
   * returned.
   */
  public static ProxyMemory settleAndRead(ProxyProcess proxy, Duration settle)
      throws IOException, InterruptedException {
    Thread.sleep(settle);
    if (proxy.jvm()) {
      Jcmd.run(proxy, "GC.run");
      Thread.sleep(ARENA_POOL_PERIOD);
      if (ProxyArms.trimsNativeHeap()) {
        Jcmd.run(proxy, "System.trim_native_heap");
      }
    }
    long rss = proxy.rssBytes();
    long pools = proxy.impl() == Impl.HAPROXY ? HaproxyArm.poolUsedBytes(proxy) : -1;
    HeapHistogram heap = proxy.jvm() ? Jcmd.histogram(proxy) : null;
    return new ProxyMemory(rss, heap, pools);
  }

  /** Live heap bytes, or -1 when not a JVM. */
  public long heapBytes() {
    return heap == null ? -1 : heap.liveBytes();
  }
}
