package dev.sluice.bench.proxy;

import dev.sluice.bench.child.HeapHistogram;
import dev.sluice.bench.harness.Impl;
import java.io.IOException;
import java.time.Duration;

/**
 * The proxy's memory at one moment, read from outside it once it has settled: VmRSS from {@code
 * /proc/PID/status} (summed over its processes: {@link ProxyProcess#rssBytes}); for a JVM arm also
 * its live heap ({@code jcmd PID GC.class_histogram}: a full GC, then every live object counted,
 * which happens before RSS is read); for HAProxy the bytes in use in its memory pools.
 *
 * @param rssBytes VmRSS
 * @param heap the live heap by class, or null (not a JVM)
 * @param poolUsedBytes HAProxy's {@code PoolUsed_bytes}, or -1 (not HAProxy)
 */
public record ProxyMemory(long rssBytes, HeapHistogram heap, long poolUsedBytes) {

  /**
   * Lets the proxy settle for {@code settle}, then reads its memory. When the JVM arms' flags trim
   * the C heap periodically ({@code -XX:TrimNativeHeapInterval}, as sluice-proxy/jvm.options
   * ships), the harness trims it once more after the histogram ({@code jcmd PID
   * System.trim_native_heap}), so that a reading does not depend on where the 5-second period
   * happens to fall: without it a baseline could still hold malloc garbage a later reading has
   * returned, and growth came out negative.
   */
  public static ProxyMemory settleAndRead(ProxyProcess proxy, Duration settle)
      throws IOException, InterruptedException {
    Thread.sleep(settle);
    HeapHistogram heap = proxy.jvm() ? Jcmd.histogram(proxy.pid()) : null;
    if (proxy.jvm() && ProxyArms.trimsNativeHeap()) {
      Jcmd.run(proxy.pid(), "System.trim_native_heap");
    }
    long pools = proxy.impl() == Impl.HAPROXY ? HaproxyArm.poolUsedBytes(proxy) : -1;
    return new ProxyMemory(proxy.rssBytes(), heap, pools);
  }

  /** Live heap bytes, or -1 when not a JVM. */
  public long heapBytes() {
    return heap == null ? -1 : heap.liveBytes();
  }
}
