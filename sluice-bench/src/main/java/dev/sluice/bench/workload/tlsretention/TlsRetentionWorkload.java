package dev.sluice.bench.workload.tlsretention;

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
import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.NettyTls;
import dev.sluice.bench.tls.TlsVersion;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 003 scaled up: a TLS client (the measured process) receives a stream on each of several
 * connections at once from a JDK {@code SSLSocket} server in the peer process, keeps one decrypted
 * chunk in N, and reports what it holds per byte kept after a full GC: heap growth plus the
 * implementation's native memory, and its VmRSS growth read by the harness.
 */
public final class TlsRetentionWorkload implements Workload {
  static final String WRITE = "write";
  static final String CONNECTIONS = "connections";
  static final String BYTES = "bytes";
  static final String KEEP_EVERY = "keep-every";
  static final String WARMUP_BYTES = "warmup-bytes";

  private static final List<Field> FIELDS =
      List.of(
          new Field("keptBytes", Unit.BYTES, "bytes of the chunks kept (each verified again)"),
          new Field(
              "heldBytes",
              Unit.BYTES,
              "growth of heap-after-GC plus native memory held, in the client process"),
          new Field("amplification", Unit.RATIO, "heldBytes / keptBytes"),
          new Field(
              "rssGrowthBytes",
              Unit.BYTES,
              "growth of the client process's VmRSS, read from /proc by the harness"),
          new Field("heapGrowthBytes", Unit.BYTES, "the heap part of heldBytes"),
          new Field(
              "nativeGrowthBytes",
              Unit.BYTES,
              "the native part of heldBytes (Sluice's MemoryStats, Netty's allocator metric)"),
          new Field(
              "nativeBaselineBytes",
              Unit.BYTES,
              "native memory the implementation already held at the baseline (after the warm-up);"
                  + " kept buffers that land in it add no growth"),
          new Field("keptChunks", Unit.COUNT, "chunks kept"),
          new Field("reads", Unit.COUNT, "decrypted reads handed to the application"),
          new Field("meanReadBytes", Unit.BYTES, "mean bytes per read handed to the application"),
          new Field("wallMs", Unit.MILLIS, "time to receive every stream"));

  @Override
  public String name() {
    return "tlsretention";
  }

  @Override
  public String summary() {
    return "seed 003: TLS client keeps about 1 decrypted read in 50; memory held per byte kept";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(
            WRITE,
            "16k",
            "bytes per write of the sending peer; each write is its own TLS record(s)"),
        new Option(CONNECTIONS, "10", "connections receiving at once"),
        new Option(BYTES, "3m", "bytes each connection receives"),
        new Option(KEEP_EVERY, "50", "keep each read with probability 1/N (at random, fixed seed)"),
        new Option(WARMUP_BYTES, "1m", "bytes received on one connection before measuring"),
        new Option(TlsVersion.OPTION, "1.3", "TLS version: 1.3 or 1.2"));
  }

  @Override
  public List<Field> fields(Params params) {
    if (params.intCount(KEEP_EVERY) < 1 || params.intCount(CONNECTIONS) < 1) {
      throw new IllegalArgumentException("--keep-every and --connections must be at least 1");
    }
    if (params.intBytes(WRITE) < 1) {
      throw new IllegalArgumentException("--write must be at least 1 byte");
    }
    TlsVersion.parse(params.string(TlsVersion.OPTION));
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return JvmFlags.maxHeapAndDirectMiB(256, 512);
  }

  @Override
  public Map<String, String> conditions(Params params) {
    return TlsVersion.parse(params.string(TlsVersion.OPTION))
        .conditions("the TLS client (receiver); the peer is a JDK SSLSocket server");
  }

  @Override
  public Set<Impl> arms(Params params) {
    return EnumSet.of(Impl.SLUICE, Impl.NETTY, Impl.NETTY_OPENSSL);
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.PEER) {
      return new TlsStreamSender();
    }
    return new TlsRetentionDriver(
        switch (impl) {
          case SLUICE -> SluiceTlsRetainingClient::new;
          case NETTY, NETTY_OPENSSL ->
              (params, tls) -> new NettyTlsRetainingClient(params, NettyTls.of(impl, tls));
          default -> throw Impl.unsupported(name(), impl);
        });
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Duration timeout = context.stepTimeout();
    Params certificate = BenchCertificate.shared().params();
    try (ChildProcess peer = context.startPeer(certificate);
        ChildProcess measured =
            context.startMeasured(
                impl,
                certificate.with(
                    RunContext.PEER_PORT, peer.await("LISTENING", timeout).field("port")))) {
      Message ready = measured.await("READY", timeout);
      ProcStatus before = measured.procStatus();
      measured.send("GO");
      Message done = measured.await("DONE", timeout);
      ProcStatus after = measured.procStatus();
      return Steps.result(
              done,
              FIELDS,
              Map.of("rssGrowthBytes", (double) (after.vmRssBytes() - before.vmRssBytes())))
          .withNotes(BenchTls.libraryNote(ready));
    }
  }
}
