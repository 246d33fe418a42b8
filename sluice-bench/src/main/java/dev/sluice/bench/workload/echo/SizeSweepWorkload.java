package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.EchoPeer;
import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.ArmSummary;
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
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 002: echo throughput on one connection at message sizes across every threshold (512 B .. 1
 * MiB, including 4095/4096/4097 and 32767/32768/32769), one message in flight, so the measured side
 * reads each size as it was sent (larger ones in several reads). Reports MiB/s per size and the
 * cliffs: drops of more than 20% from one size to the next, marked whether Netty's curve in the
 * same run drops there too.
 */
public final class SizeSweepWorkload implements Workload {
  static final String SIZES = "sizes";
  static final String MIB_PER_SIZE = "mib-per-size";
  static final String MIN_MESSAGES = "min-messages";
  static final String MAX_MESSAGES = "max-messages";

  /** A drop larger than this fraction between neighbouring sizes is a cliff. */
  static final double CLIFF = 0.20;

  private static final String POINTS = "points.";

  @Override
  public String name() {
    return "sizesweep";
  }

  @Override
  public String summary() {
    return "seed 002: echo throughput per message size across every threshold; cliffs";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(
            SIZES,
            "512,1024,2048,4095,4096,4097,8192,16384,32767,32768,32769,65536,131072,262144,"
                + "524288,1048576",
            "message sizes, ascending, comma-separated"),
        new Option(MIB_PER_SIZE, "64", "MiB echoed per size (within the message limits below)"),
        new Option(MIN_MESSAGES, "256", "at least this many messages per size"),
        new Option(MAX_MESSAGES, "20000", "at most this many messages per size"));
  }

  @Override
  public List<Field> fields(Params params) {
    return params.byteList(SIZES).stream()
        .map(
            size ->
                new Field(
                    POINTS + size,
                    Unit.MIB_PER_SEC,
                    "echo throughput at " + size + " B messages (payload one way)"))
        .toList();
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
    return role == Role.PEER ? new EchoPeer() : control -> drive(control, impl);
  }

  static int messages(Params params, long size) {
    long byBudget = (params.count(MIB_PER_SIZE) << 20) / size;
    long min = params.count(MIN_MESSAGES);
    long max = Math.max(min, params.count(MAX_MESSAGES));
    return (int) Math.max(min, Math.min(max, byBudget));
  }

  private static void drive(ChildControl control, Impl impl) throws Exception {
    Params params = control.params();
    List<Long> sizes = params.byteList(SIZES);
    int largest = Math.toIntExact(sizes.stream().mapToLong(Long::longValue).max().orElse(1));
    Integrity integrity = new Integrity();
    EchoSetup setup = new EchoSetup(PeerAddress.of(params), 1, largest, integrity);
    try (EchoClients clients = EchoImpls.create(impl, setup)) {
      clients.connect(1);
      for (long size : sizes) {
        clients.run((int) size, Math.max(1, messages(params, size) / 10));
      }
      JvmMemory.settle();
      control.send("READY");
      control.await("GO");
      Map<String, Object> done = new LinkedHashMap<>();
      for (long size : sizes) {
        int messages = messages(params, size);
        long start = System.nanoTime();
        clients.run((int) size, messages);
        double seconds = (System.nanoTime() - start) / 1e9;
        done.put(POINTS + size, (double) size * messages / (1 << 20) / seconds);
      }
      control.send("DONE", integrity.addTo(done));
      control.await("EXIT");
    }
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    return Steps.readyGoDone(context, impl, fields(context.params()));
  }

  /**
   * Each arm's cliffs on its median curve. A Sluice cliff is marked {@code nettyToo} when Netty's
   * curve in the same run drops by more than the same threshold between the same sizes.
   */
  @Override
  public Map<Impl, Map<String, Object>> derived(Map<Impl, ArmSummary> arms) {
    Map<Impl, Map<String, Object>> derived = new EnumMap<>(Impl.class);
    arms.forEach(
        (impl, arm) -> {
          ArmSummary other = arms.get(impl == Impl.SLUICE ? Impl.NETTY : Impl.SLUICE);
          derived.put(impl, Map.of("cliffs", Cliffs.find(arm, other)));
        });
    return derived;
  }
}
