package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.DiagnosticCommands;
import dev.sluice.bench.child.HeapHistogram;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.NettyTls;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The measured side of tlsidle: start the echo server, report LISTENING; at each SETTLE (once after
 * the peer's warm-up, once with every connection open and idle) bring the JVM to a steady state,
 * count the live heap by class, wait for the JIT compilers to go quiet, and report it with the
 * native memory and the open connections. The second report carries the heap growth by owner
 * ({@link HeapOwner}). With {@code --breakdown on} both reports carry the JVM's own accounts
 * ({@link Breakdown}), and a TRIM after the second gives the C library's freed memory back.
 */
final class IdleServerDriver implements ChildProgram {
  /** Whether the JIT compilers were quiet when the harness read RSS (false: waited in vain). */
  static final String COMPILERS_QUIET = "compilersQuiet";

  private static final long QUIET_LIMIT_MILLIS = 10_000;

  private final Impl impl;

  IdleServerDriver(Impl impl) {
    this.impl = impl;
  }

  @Override
  public void run(ChildControl control) throws Exception {
    Params params = control.params();
    Transport transport = Transport.parse(params.string(Transport.OPTION));
    BenchTls tls = transport == Transport.TLS ? BenchTls.from(params) : null;
    try (IdleServer server =
        switch (impl) {
          case SLUICE -> new SluiceIdleServer(tls);
          case NETTY, NETTY_OPENSSL ->
              new NettyIdleServer(tls == null ? null : NettyTls.of(impl, tls));
          default -> throw Impl.unsupported("tlsidle", impl);
        }) {
      Map<String, Object> listening = new LinkedHashMap<>();
      listening.put("port", server.port());
      if (server.tlsLibrary() != null) {
        listening.put(BenchTls.LIBRARY, server.tlsLibrary());
      }
      control.send("LISTENING", listening);

      boolean breakdown = Breakdown.requested(params);
      long settleMillis = params.count(TlsIdleWorkload.SETTLE_MS);
      control.await("SETTLE");
      JvmMemory.settle();
      HeapHistogram.take(); // its own machinery stays live: set it up before the baseline
      HeapHistogram before = HeapHistogram.take();
      Map<String, Object> baseline = settled(server, before);
      baseline.put(COMPILERS_QUIET, quiesce(settleMillis));
      Breakdown diagnostics = breakdown ? Breakdown.baseline(baseline) : null;
      control.send("SETTLED", baseline);

      control.await("SETTLE");
      JvmMemory.settle();
      HeapHistogram after = HeapHistogram.take();
      Map<String, Object> idle = settled(server, after);
      HeapOwner.group(before.growthTo(after))
          .forEach((owner, bytes) -> idle.put("heapGrowth." + owner.id(), bytes));
      idle.put(COMPILERS_QUIET, quiesce(settleMillis));
      if (diagnostics != null) {
        diagnostics.idle(idle);
      }
      control.send("SETTLED", idle);
      if (breakdown) {
        control.await("TRIM");
        control.send("TRIMMED", "report", DiagnosticCommands.run("systemTrimNativeHeap").strip());
      }
      control.await("EXIT");
    }
  }

  /**
   * Waits for the JIT compilers to go quiet, then {@code settleMillis} (by default long enough for
   * HotSpot to free the arena chunks their compilations gave back: it keeps them pooled and frees
   * the pool every 5 s), then for the compilers again. Measured here: without the second wait, up
   * to 18 MB of pooled C2 arena chunks were in the baseline reading and gone by the next, which
   * made plain TCP's RSS growth smaller than its heap growth.
   *
   * @return whether the compilers were quiet both times
   */
  private static boolean quiesce(long settleMillis) throws InterruptedException {
    boolean quiet = JvmMemory.awaitQuietCompilers(QUIET_LIMIT_MILLIS);
    Thread.sleep(settleMillis);
    return JvmMemory.awaitQuietCompilers(QUIET_LIMIT_MILLIS) && quiet;
  }

  private static Map<String, Object> settled(IdleServer server, HeapHistogram heap) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("connections", server.openConnections());
    fields.put("heapBytes", heap.liveBytes());
    fields.put("nativeBytes", server.nativeBytes());
    return fields;
  }
}
