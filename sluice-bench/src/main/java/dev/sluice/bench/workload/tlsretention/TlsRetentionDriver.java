package dev.sluice.bench.workload.tlsretention;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.lang.ref.Reference;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The measured side of tlsretention, the same sequence for every implementation: warm up on one
 * connection, settle, report READY; on GO receive on every connection at once, keeping about one
 * chunk in N; verify every byte and every kept chunk; measure what the process holds (live heap
 * plus the implementation's native memory); report DONE; keep the chunks alive until EXIT so the
 * harness's RSS reading sees them.
 */
final class TlsRetentionDriver implements ChildProgram {
  /** Makes an implementation's client from the run's params and TLS material. */
  @FunctionalInterface
  interface ClientFactory {
    TlsRetainingClient<?> create(Params params, BenchTls tls) throws Exception;
  }

  private final ClientFactory clients;

  TlsRetentionDriver(ClientFactory clients) {
    this.clients = clients;
  }

  @Override
  public void run(ChildControl control) throws Exception {
    try (TlsRetainingClient<?> client =
        clients.create(control.params(), BenchTls.from(control.params()))) {
      measure(control, client);
    }
  }

  private static <T> void measure(ChildControl control, TlsRetainingClient<T> client)
      throws Exception {
    Params params = control.params();
    int connections = params.intCount(TlsRetentionWorkload.CONNECTIONS);
    long bytesEach = params.bytes(TlsRetentionWorkload.BYTES);
    long warmupBytes = params.bytes(TlsRetentionWorkload.WARMUP_BYTES);
    int keepEvery = params.intCount(TlsRetentionWorkload.KEEP_EVERY);
    Integrity integrity = new Integrity();

    RetainedStreams<T> warm = new RetainedStreams<>(client.ops(), keepEvery);
    client.receive(1, warmupBytes, warm);
    verify(warm, warmupBytes, integrity, "warm-up");
    warm.kept().forEach(k -> client.ops().release(k.chunk()));
    warm = null;
    JvmMemory.settle();
    JvmMemory.liveHeapBytes(); // the first histogram's own machinery stays live: not in the figure
    long heapBefore = JvmMemory.liveHeapBytes();
    long nativeBefore = client.nativeBytes();
    control.send("READY", BenchTls.LIBRARY, client.tlsLibrary());
    control.await("GO");

    long start = System.nanoTime();
    RetainedStreams<T> run = new RetainedStreams<>(client.ops(), keepEvery);
    client.receive(connections, bytesEach, run);
    long wallNanos = System.nanoTime() - start;
    long keptBytes = verify(run, bytesEach, integrity, "run");
    if (run.kept().isEmpty()) {
      throw new IllegalStateException(
          "no read was kept of " + run.reads() + ": lower --keep-every or send more bytes");
    }
    long heapGrowth = JvmMemory.liveHeapBytes() - heapBefore;
    long nativeGrowth = client.nativeBytes() - nativeBefore;
    long held = heapGrowth + nativeGrowth;
    Map<String, Object> done = new LinkedHashMap<>();
    done.put("keptBytes", keptBytes);
    done.put("heldBytes", held);
    done.put("amplification", (double) held / keptBytes);
    done.put("heapGrowthBytes", heapGrowth);
    done.put("nativeGrowthBytes", nativeGrowth);
    done.put("nativeBaselineBytes", nativeBefore);
    done.put("keptChunks", run.kept().size());
    done.put("reads", run.reads());
    done.put("meanReadBytes", (double) run.readBytes() / run.reads());
    done.put("wallMs", wallNanos / 1e6);
    control.send("DONE", integrity.addTo(done));
    control.await("EXIT");
    Reference.reachabilityFence(run);
    run.kept().forEach(k -> client.ops().release(k.chunk()));
  }

  /**
   * Checks that every connection received exactly {@code bytesEach} bytes, each one right (checked
   * as they arrived), and checks every kept chunk again, now that the run is over, at its offset.
   *
   * @return the bytes kept
   */
  private static <T> long verify(
      RetainedStreams<T> streams, long bytesEach, Integrity integrity, String where) {
    List<RetainedStreams<T>.Stream> all = streams.streams();
    for (int i = 0; i < all.size(); i++) {
      PatternVerifier verifier = all.get(i).verifier();
      verifier.finish(bytesEach);
      integrity.check(verifier, where + ", connection " + i);
    }
    long keptBytes = 0;
    for (RetainedStreams.Kept<T> kept : streams.kept()) {
      PatternVerifier verifier = PayloadPattern.DEFAULT.verifier(kept.streamOffset());
      streams.ops().verify(kept.chunk(), verifier);
      integrity.check(verifier, where + ", a kept chunk at stream offset " + kept.streamOffset());
      keptBytes += streams.ops().length(kept.chunk());
    }
    return keptBytes;
  }
}
