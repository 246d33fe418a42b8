package dev.sluice.bench.workload.retention;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.lang.ref.Reference;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The measured side of the retention workload, the same sequence for every implementation: warm up,
 * settle, report READY; on GO receive and keep every chunk; verify them all; measure what the
 * process holds after a full GC; report DONE; keep the chunks alive until EXIT so the harness's RSS
 * reading sees them.
 */
final class RetentionDriver implements ChildProgram {
  private final Function<Params, RetainingClient<?>> clients;

  RetentionDriver(Function<Params, RetainingClient<?>> clients) {
    this.clients = clients;
  }

  @Override
  public void run(ChildControl control) throws Exception {
    try (RetainingClient<?> client = clients.apply(control.params())) {
      measure(control, client);
    }
  }

  private static <T> void measure(ChildControl control, RetainingClient<T> client)
      throws Exception {
    Params params = control.params();
    long chunks = params.count(RetentionWorkload.CHUNKS);
    long warmupChunks = params.count(RetentionWorkload.WARMUP_CHUNKS);
    int size = params.intBytes(RetentionWorkload.SIZE);
    Integrity integrity = new Integrity();

    List<T> warm = client.receive(warmupChunks);
    verify(client, warm, warmupChunks * size, integrity, "warm-up");
    warm.forEach(client::release);
    warm = null;
    JvmMemory.settle();
    long heapBefore = JvmMemory.heapUsed();
    long nativeBefore = client.nativeBytes();
    control.send("READY");
    control.await("GO");

    long start = System.nanoTime();
    List<T> kept = client.receive(chunks);
    long wallNanos = System.nanoTime() - start;
    long retained = verify(client, kept, chunks * size, integrity, "run");
    JvmMemory.fullGc();
    long heapGrowth = JvmMemory.heapUsed() - heapBefore;
    long nativeGrowth = client.nativeBytes() - nativeBefore;
    long held = heapGrowth + nativeGrowth;
    Map<String, Object> done = new LinkedHashMap<>();
    done.put("retainedBytes", retained);
    done.put("heldBytes", held);
    done.put("heapGrowthBytes", heapGrowth);
    done.put("nativeGrowthBytes", nativeGrowth);
    done.put("amplification", retained == 0 ? 0.0 : (double) held / retained);
    done.put("wallMs", wallNanos / 1e6);
    done.put("reads", kept.size());
    control.send("DONE", integrity.addTo(done));
    control.await("EXIT");
    Reference.reachabilityFence(kept);
    kept.forEach(client::release);
  }

  private static <T> long verify(
      RetainingClient<T> client, List<T> kept, long expected, Integrity integrity, String where) {
    PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    long bytes = 0;
    for (T chunk : kept) {
      client.verify(chunk, verifier);
      bytes += client.length(chunk);
    }
    verifier.finish(expected);
    integrity.check(verifier, where);
    return bytes;
  }
}
