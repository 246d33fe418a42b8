package dev.sluice.bench.workload.tlsthroughput;

import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.child.MeasuredAddress;
import dev.sluice.bench.harness.ChildControl;
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
import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.NettyTls;
import dev.sluice.bench.tls.TlsVersion;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Server-to-client TLS throughput (Node's benchmark/tls/throughput-s2c.js shape): the measured
 * process is the TLS server, which sends M MiB of pattern in application writes of {@code --chunk}
 * bytes with backpressure; the peer is a blocking JDK {@code SSLSocket} client, the same in every
 * arm, which verifies every byte and times the transfer. Also reports what the sending took in CPU
 * and in peak RSS, both read from outside the sender.
 */
public final class TlsThroughputWorkload implements Workload {
  static final String CHUNK = "chunk";
  static final String MIB = "mib";
  static final String WARMUP_MIB = "warmup-mib";

  private static final Duration SAMPLE_INTERVAL = Duration.ofMillis(5);
  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "mibPerSec",
              Unit.MIB_PER_SEC,
              "MiB received and verified per second by the peer, request to end of stream"),
          new Field(
              "senderCpuMsPerGiB",
              Unit.MILLIS,
              "CPU time of the sending process (user + system, /proc) per GiB sent"),
          new Field(
              "peakRssGrowthBytes",
              Unit.BYTES,
              "peak VmRSS of the sender during the transfer minus its VmRSS just before"),
          new Field("wallMs", Unit.MILLIS, "the transfer, as the peer timed it"));

  @Override
  public String name() {
    return "tlsthroughput";
  }

  @Override
  public String summary() {
    return "seed 003: TLS server-to-client throughput at one send-chunk size";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(CHUNK, "32k", "bytes per application write (e.g. 256, 32k, 128k, 16m)"),
        new Option(MIB, "256", "MiB sent in the measured transfer"),
        new Option(WARMUP_MIB, "32", "MiB sent on a first connection before measuring"),
        new Option(TlsVersion.OPTION, "1.3", "TLS version: 1.3 or 1.2"));
  }

  @Override
  public List<Field> fields(Params params) {
    if (params.intBytes(CHUNK) < 1 || params.count(MIB) < 1) {
      throw new IllegalArgumentException("--chunk and --mib must be at least 1");
    }
    TlsVersion.parse(params.string(TlsVersion.OPTION));
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    // Room for a few chunks in flight (and Netty's ciphertext of a whole flushed chunk).
    long chunkMiB = params.bytes(CHUNK) >> 20;
    return JvmFlags.maxHeapMiB(512 + 4 * chunkMiB);
  }

  @Override
  public Map<String, String> conditions(Params params) {
    return TlsVersion.parse(params.string(TlsVersion.OPTION))
        .conditions(
            "the TLS server (sender); the receiver is a blocking JDK SSLSocket client in the peer"
                + " JVM, the same in every arm");
  }

  @Override
  public Set<Impl> arms(Params params) {
    return EnumSet.of(Impl.SLUICE, Impl.NETTY, Impl.NETTY_OPENSSL);
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.PEER) {
      return new VerifyingTlsReceiver();
    }
    return control -> serve(control, impl);
  }

  private static void serve(ChildControl control, Impl impl) throws Exception {
    Params params = control.params();
    BenchTls tls = BenchTls.from(params);
    try (TlsSenderServer server =
        switch (impl) {
          case SLUICE -> new SluiceTlsSenderServer(params, tls);
          case NETTY, NETTY_OPENSSL -> new NettyTlsSenderServer(params, NettyTls.of(impl, tls));
          default -> throw Impl.unsupported("tlsthroughput", impl);
        }) {
      control.send("LISTENING", "port", server.port(), BenchTls.LIBRARY, server.tlsLibrary());
      control.await("SETTLE"); // after the peer's warm-up transfer
      JvmMemory.settle();
      control.send("SETTLED");
      control.await("EXIT");
    }
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Duration timeout = context.stepTimeout();
    Params certificate = BenchCertificate.shared().params();
    try (ChildProcess measured = context.startMeasured(impl, certificate)) {
      Message listening = measured.await("LISTENING", timeout);
      try (ChildProcess peer =
          context.startPeer(certificate.with(MeasuredAddress.PORT, listening.field("port")))) {
        Message warm = peer.await("WARM", timeout);
        measured.send("SETTLE");
        measured.await("SETTLED", timeout);
        ProcStatus before = measured.procStatus();
        Duration cpuBefore = measured.cpuTime();
        boolean hwmReset = measured.resetPeakRss();
        Message received;
        long sampledPeak;
        try (RssSampler sampler = RssSampler.start(measured.pid(), SAMPLE_INTERVAL)) {
          peer.send("GO");
          received = peer.await("RECEIVED", timeout);
          sampledPeak = sampler.maxRssBytes();
        }
        Duration cpu = measured.cpuTime().minus(cpuBefore);
        ProcStatus after = measured.procStatus();
        long peak = Math.max(sampledPeak, after.vmRssBytes());
        if (hwmReset) {
          peak = Math.max(peak, after.vmHwmBytes());
        }
        long bytes = received.longValue("bytes");
        double seconds = received.number("nanos") / 1e9;
        Map<String, Double> values = new LinkedHashMap<>();
        values.put("mibPerSec", bytes / (double) (1 << 20) / seconds);
        values.put("senderCpuMsPerGiB", cpu.toNanos() / 1e6 / (bytes / (double) (1L << 30)));
        values.put("peakRssGrowthBytes", (double) (peak - before.vmRssBytes()));
        values.put("wallMs", seconds * 1e3);
        return integrity(values, warm, received).withNotes(BenchTls.libraryNote(listening));
      }
    }
  }

  private static RunResult integrity(Map<String, Double> values, Message warm, Message received) {
    for (Message m : List.of(warm, received)) {
      if (!"OK".equals(m.field("integrity"))) {
        String which = m == warm ? "warm-up transfer: " : "measured transfer: ";
        return RunResult.of(values, false, which + m.field("integrityDetail"));
      }
    }
    return RunResult.ok(values);
  }
}
