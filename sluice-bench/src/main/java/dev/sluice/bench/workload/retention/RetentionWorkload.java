package dev.sluice.bench.workload.retention;

import dev.sluice.bench.child.NettyTransport;
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
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 000: a client that keeps every chunk it reads, ack-paced so each write lands as its own
 * read. Reports what the retaining process holds per byte kept, measured inside it (heap after GC
 * plus the implementation's native memory) and outside it (VmRSS growth sampled by the harness).
 */
public final class RetentionWorkload implements Workload {
  static final String SIZE = "size";
  static final String CHUNKS = "chunks";
  static final String WARMUP_CHUNKS = "warmup-chunks";

  private static final List<Field> FIELDS =
      List.of(
          new Field("retainedBytes", Unit.BYTES, "bytes of all chunks kept (verified)"),
          new Field(
              "heldBytes",
              Unit.BYTES,
              "growth of heap-after-GC plus native memory held, in the retaining process"),
          new Field(
              "rssGrowthBytes",
              Unit.BYTES,
              "growth of the retaining process's VmRSS, read from /proc by the harness"),
          new Field("amplification", Unit.RATIO, "heldBytes / retainedBytes"),
          new Field("wallMs", Unit.MILLIS, "time to receive every chunk"),
          new Field("heapGrowthBytes", Unit.BYTES, "the heap part of heldBytes"),
          new Field(
              "nativeGrowthBytes",
              Unit.BYTES,
              "the native part of heldBytes (Sluice's MemoryStats, Netty's allocator metric)"),
          new Field("reads", Unit.COUNT, "reads handed to the application"));

  @Override
  public String name() {
    return "retention";
  }

  @Override
  public String summary() {
    return "seed 000: ack-paced small reads, every chunk kept; memory held per byte kept";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(SIZE, "1400", "bytes per chunk (one write and one read each)"),
        new Option(CHUNKS, "20000", "chunks kept"),
        new Option(WARMUP_CHUNKS, "2000", "chunks received and released before measuring"));
  }

  @Override
  public List<Field> fields(Params params) {
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    long retainedMiB = params.bytes(SIZE) * params.count(CHUNKS) >> 20;
    // Heap: three times the kept bytes (the copies, plus room for a full GC's compaction).
    // Direct: sixteen times, beyond the worst amplification seen (about 6x), so that it is
    // measured rather than cut short by the limit.
    return JvmFlags.maxHeapAndDirectMiB(
        Math.max(256, 3 * retainedMiB + 256), Math.max(512, 16 * retainedMiB + 256));
  }

  @Override
  public Set<Impl> arms(Params params) {
    return Impl.sluiceAndNetty();
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.PEER) {
      return new ChunkSender();
    }
    return new RetentionDriver(
        switch (impl) {
          case SLUICE -> SluiceRetainingClient::new;
          case NETTY -> params -> new NettyRetainingClient(params, NettyTransport.NIO);
          case NETTY_EPOLL -> params -> new NettyRetainingClient(params, NettyTransport.EPOLL);
          default -> throw Impl.unsupported(name(), impl);
        });
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Duration timeout = context.stepTimeout();
    try (ChildProcess peer = context.startPeer();
        ChildProcess measured =
            context.startMeasured(impl, peer.await("LISTENING", timeout).field("port"))) {
      measured.await("READY", timeout);
      ProcStatus before = measured.procStatus();
      measured.send("GO");
      Message done = measured.await("DONE", timeout);
      ProcStatus after = measured.procStatus();
      return Steps.result(
          done,
          FIELDS,
          Map.of("rssGrowthBytes", (double) (after.vmRssBytes() - before.vmRssBytes())));
    }
  }
}
