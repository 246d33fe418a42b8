package dev.sluice.bench.workload.bulk;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Bulk receive: one connection, the peer sends M MiB as fast as it can (so reads fill the read
 * buffer), the measured side verifies every byte through its default read path.
 */
public final class BulkWorkload implements Workload {
  static final String MIB = "mib";
  static final String WARMUP_MIB = "warmup-mib";

  private static final List<Field> FIELDS =
      List.of(
          new Field("mibPerSec", Unit.MIB_PER_SEC, "MiB received and verified per second"),
          new Field("wallMs", Unit.MILLIS, "from the request to the peer's end of stream"));

  @Override
  public String name() {
    return "bulk";
  }

  @Override
  public String summary() {
    return "one connection, 1 GiB received at full speed and verified (read throughput)";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(MIB, "1024", "MiB to receive"),
        new Option(WARMUP_MIB, "64", "MiB received on a first connection before measuring"));
  }

  @Override
  public List<Field> fields(Params params) {
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return JvmFlags.maxHeapMiB(512);
  }

  @Override
  public Set<Impl> arms(Params params) {
    return Impl.sluiceAndNetty();
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    return role == Role.PEER ? new BulkSender() : control -> drive(control, impl);
  }

  private static void drive(ChildControl control, Impl impl) throws Exception {
    Params params = control.params();
    long bytes = params.count(MIB) << 20;
    Integrity integrity = new Integrity();
    try (BulkReceiver receiver =
        switch (impl) {
          case SLUICE -> new SluiceBulkReceiver(params, integrity);
          case NETTY, NETTY_EPOLL ->
              new NettyBulkReceiver(params, integrity, NettyTransport.of(impl));
          default -> throw Impl.unsupported("bulk", impl);
        }) {
      receiver.connect();
      receiver.receive(params.count(WARMUP_MIB) << 20);
      receiver.connect();
      JvmMemory.settle();
      control.send("READY");
      control.await("GO");
      long start = System.nanoTime();
      long received = receiver.receive(bytes);
      long nanos = System.nanoTime() - start;
      Map<String, Object> done = new LinkedHashMap<>();
      done.put("mibPerSec", received / (double) (1 << 20) / (nanos / 1e9));
      done.put("wallMs", nanos / 1e6);
      control.send("DONE", integrity.addTo(done));
      control.await("EXIT");
    }
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    return Steps.readyGoDone(context, impl, FIELDS);
  }
}
