package dev.sluice.bench.workload.bigwrite;

import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.harness.ArmSummary;
import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.ProcStatus;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.RssSampler;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 001: one write of an M MiB patterned payload to a full-speed reader in another process that
 * SHA-256s it. Reports the write's duration and how far the writer's RSS rose above its level just
 * before the write (payload already allocated and touched): a payload-sized duplicate shows as
 * about M MiB.
 */
public final class BigWriteWorkload implements Workload {
  static final String MIB = "mib";
  static final String BUFFER = "buffer";
  static final String WARMUP_MIB = "warmup-mib";

  private static final Duration SAMPLE_INTERVAL = Duration.ofMillis(1);
  private static final List<String> KINDS = List.of("heap", "direct");
  private static final List<Field> FIELDS =
      List.of(
          new Field("writeMs", Unit.MILLIS, "from write() to its completion callback"),
          new Field(
              "peakExtraBytes",
              Unit.BYTES,
              "peak VmRSS of the writer during the write minus its VmRSS just before"),
          new Field(
              "sampledPeakExtraBytes",
              Unit.BYTES,
              "the same from the harness's 1 ms VmRSS sampling alone (cross-check of VmHWM)"),
          new Field("baselineRssBytes", Unit.BYTES, "the writer's VmRSS just before the write"));

  @Override
  public String name() {
    return "bigwrite";
  }

  @Override
  public String summary() {
    return "seed 001: one big write to a full-speed reader; write time and the writer's extra RSS";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(MIB, "512", "payload size in MiB"),
        new Option(
            BUFFER,
            "heap",
            "payload buffer: heap, direct, or both (each run measures heap then direct; fields"
                + " nest under heap. and direct.)"),
        new Option(WARMUP_MIB, "16", "MiB written on a first connection before measuring"));
  }

  @Override
  public List<Field> fields(Params params) {
    List<String> kinds = kinds(params);
    if (kinds.size() == 1) {
      return FIELDS;
    }
    return kinds.stream()
        .flatMap(
            kind ->
                FIELDS.stream()
                    .map(
                        f ->
                            new Field(
                                kind + "." + f.name(),
                                f.unit(),
                                f.description() + " (" + kind + ")")))
        .toList();
  }

  /** The buffer kinds a run measures, from {@code --buffer}. */
  static List<String> kinds(Params params) {
    String buffer = params.string(BUFFER);
    if (buffer.equals("both")) {
      return KINDS;
    }
    if (!KINDS.contains(buffer)) {
      throw new IllegalArgumentException(
          "--buffer expects heap, direct or both, got '" + buffer + "'");
    }
    return List.of(buffer);
  }

  @Override
  public List<String> memoryFlags(Params params) {
    // The heap holds the payload; the default direct-memory limit equals -Xmx, so it holds a
    // payload-sized direct copy too.
    return JvmFlags.maxHeapMiB(params.count(MIB) + 256);
  }

  @Override
  public Set<Impl> arms(Params params) {
    return Impl.sluiceAndNetty();
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.PEER) {
      return new HashingReader();
    }
    return new BigWriteDriver(
        switch (impl) {
          case SLUICE -> SluiceBigWriter::new;
          case NETTY -> params -> new NettyBigWriter(params, NettyTransport.NIO);
          case NETTY_EPOLL -> params -> new NettyBigWriter(params, NettyTransport.EPOLL);
          default -> throw Impl.unsupported(name(), impl);
        });
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    List<String> kinds = kinds(context.params());
    Map<String, Double> values = new LinkedHashMap<>();
    String problem = null;
    for (String kind : kinds) {
      Measurement m = measure(context, impl, kind);
      String prefix = kinds.size() == 1 ? "" : kind + ".";
      m.values().forEach((name, value) -> values.put(prefix + name, value));
      if (problem == null && m.problem() != null) {
        problem = kind + " buffer: " + m.problem();
      }
    }
    return RunResult.of(values, problem == null, problem);
  }

  /** One big write's figures, and what was wrong with its bytes (null if nothing). */
  private record Measurement(Map<String, Double> values, String problem) {}

  private Measurement measure(RunContext context, Impl impl, String kind) throws Exception {
    Duration timeout = context.stepTimeout();
    try (ChildProcess peer = context.startPeer();
        ChildProcess measured =
            context.startMeasured(
                impl,
                Params.of(
                    Map.of(
                        RunContext.PEER_PORT,
                        peer.await("LISTENING", timeout).field("port"),
                        BUFFER,
                        kind)))) {
      Message ready = measured.await("READY", timeout);
      Message warm = peer.await("RECEIVED", timeout);
      ProcStatus before = measured.procStatus();
      boolean hwmReset = measured.resetPeakRss();
      RssSampler sampler = RssSampler.start(measured.pid(), SAMPLE_INTERVAL);
      Message done;
      try {
        measured.send("GO");
        done = measured.await("DONE", timeout);
      } finally {
        sampler.close();
      }
      ProcStatus after = measured.procStatus();
      Message received = peer.await("RECEIVED", timeout);

      long baseline = before.vmRssBytes();
      long sampledPeak = Math.max(sampler.maxRssBytes(), after.vmRssBytes());
      long peak = hwmReset ? Math.max(sampledPeak, after.vmHwmBytes()) : sampledPeak;
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("writeMs", done.number("writeMs"));
      values.put("peakExtraBytes", (double) (peak - baseline));
      values.put("sampledPeakExtraBytes", (double) (sampledPeak - baseline));
      values.put("baselineRssBytes", (double) baseline);
      return new Measurement(values, integrityProblem(ready, warm, received));
    }
  }

  /**
   * With {@code --buffer both}: Sluice's heap-buffer write time over Netty's direct-buffer write
   * time in the same run (issue 2 asks for at most 1.2).
   */
  @Override
  public Map<Impl, Map<String, Object>> derived(Map<Impl, ArmSummary> arms) {
    ArmSummary sluice = arms.get(Impl.SLUICE);
    ArmSummary netty = arms.get(Impl.NETTY);
    if (sluice == null || netty == null || Double.isNaN(sluice.median("heap.writeMs"))) {
      return Map.of();
    }
    double ratio = sluice.median("heap.writeMs") / netty.median("direct.writeMs");
    return Map.of(Impl.SLUICE, Map.of("heapWriteMsOverNettyDirectWriteMs", ratio));
  }

  private static String integrityProblem(Message ready, Message warm, Message received) {
    if (!warm.field("sha256").equals(ready.field("warmSha256"))) {
      return "warm-up write: the reader's SHA-256 differs from the writer's";
    }
    if (received.longValue("bytes") != ready.longValue("bytes")) {
      return "the reader got " + received.field("bytes") + " bytes of " + ready.field("bytes");
    }
    if (!received.field("sha256").equals(ready.field("sha256"))) {
      return "the reader's SHA-256 "
          + received.field("sha256")
          + " differs from the writer's "
          + ready.field("sha256");
    }
    return null;
  }
}
