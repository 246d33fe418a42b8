package dev.sluice.bench.workload.bigwrite;

import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.Sha256;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * The measured side of the big write, the same sequence for every implementation: allocate and fill
 * the payload (so its pages are resident before the baseline), hash it, warm up with a smaller
 * write, connect, settle, report READY; on GO write the payload once and report the time to the
 * completion callback.
 */
final class BigWriteDriver implements ChildProgram {
  private final Function<Params, BigWriter> writers;

  BigWriteDriver(Function<Params, BigWriter> writers) {
    this.writers = writers;
  }

  @Override
  public void run(ChildControl control) throws Exception {
    Params params = control.params();
    int bytes = Math.toIntExact(params.count(BigWriteWorkload.MIB) << 20);
    int warmBytes =
        Math.min(bytes, Math.toIntExact(params.count(BigWriteWorkload.WARMUP_MIB) << 20));
    ByteBuffer payload =
        switch (params.string(BigWriteWorkload.BUFFER)) {
          case "heap" -> ByteBuffer.allocate(bytes);
          case "direct" -> ByteBuffer.allocateDirect(bytes);
          default ->
              throw new IllegalArgumentException(
                  "a measured writer takes one buffer kind, heap or direct, got "
                      + params.string(BigWriteWorkload.BUFFER));
        };
    PayloadPattern.DEFAULT.fill(payload, 0);
    String sha256 = Sha256.hex(payload);
    String warmSha256 = Sha256.hex(payload.slice(0, warmBytes));

    try (BigWriter writer = writers.apply(params)) {
      writer.connect(warmBytes);
      writer.write(payload.slice(0, warmBytes));
      writer.finish();
      writer.connect(bytes);
      JvmMemory.settle();
      control.send("READY", "bytes", bytes, "sha256", sha256, "warmSha256", warmSha256);
      control.await("GO");
      long nanos = writer.write(payload.duplicate());
      control.send("DONE", "writeMs", nanos / 1e6);
      writer.finish();
      control.await("EXIT");
    }
    Reference.reachabilityFence(payload);
  }
}
