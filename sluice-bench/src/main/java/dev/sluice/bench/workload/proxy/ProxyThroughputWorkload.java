package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.ProcStatus;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bulk throughput through the proxy (seed 004's replication profile: few connections, high volume):
 * each connection streams the pattern for a fixed time while reading and checking its echo. The
 * harness reads the proxy's CPU time from {@code /proc/PID/stat} before and after, so the figure is
 * also CPU per GiB: the client and the upstream share the machine's cores with the proxy and may
 * bound the MiB/s.
 */
public final class ProxyThroughputWorkload extends ProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String SECONDS = "seconds";
  static final String WARMUP_SECONDS = "warmup-seconds";

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "mibPerSec",
              Unit.MIB_PER_SEC,
              "payload echoed through the proxy per second, all connections (each byte crosses"
                  + " the proxy twice)"),
          new Field(
              "cpuSecondsPerGiB",
              Unit.SECONDS,
              "the proxy's CPU seconds (utime + stime from /proc/PID/stat) per GiB echoed"),
          new Field("cpuCores", Unit.RATIO, "the proxy's CPU seconds per second of the run"),
          new Field(
              "peakRssGrowthBytes",
              Unit.BYTES,
              "the proxy's VmHWM during the run minus its VmRSS before"),
          new Field("wallMs", Unit.MILLIS, "the run's duration, to the last byte echoed"));

  @Override
  public String name() {
    return "proxythroughput";
  }

  @Override
  public String summary() {
    return "few connections stream through the proxy; MiB/s and the proxy's CPU per GiB";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(CONNECTIONS, "4", "connections, each streaming at full speed"),
        new Option(SECONDS, "8", "how long each streams"),
        new Option(WARMUP_SECONDS, "2", "streaming on the same connections before measuring"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int n = atLeast(params, CONNECTIONS, 1);
    if (n > 256) {
      throw new IllegalArgumentException("--connections must be at most 256 (two threads each)");
    }
    atLeast(params, SECONDS, 1);
    params.count(WARMUP_SECONDS);
    return FIELDS;
  }

  @Override
  int peakConnections(Params params) {
    return params.intCount(CONNECTIONS);
  }

  @Override
  String model(Impl impl, Params params) {
    return switch (impl) {
      case SLUICE ->
          "predicted: each read is written to the other leg from the loop's slab (a copy only of"
              + " what a peer did not take), so no allocation per chunk";
      case NETTY, NETTY_EPOLL, NETTY_OPENSSL ->
          "predicted: one pooled buffer per read (adaptive size, up to 64 KiB), written and"
              + " released; the next read only after the write completes"
              + (tls(params) && impl != Impl.NETTY
                  ? "; records sealed and opened by BoringSSL"
                  : "");
      case HAPROXY ->
          "predicted: 16 KiB buffers per direction (bufsize), no splice: two copies through"
              + " user space per byte and direction";
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  ChildProgram client() {
    return new StreamLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      run.awaitClient("READY");
      ProcStatus before = run.proxy.procStatus();
      Duration cpuBefore = run.proxy.cpuTime();
      boolean hwmReset = run.proxy.resetPeakRss();
      run.go("measure");
      Message done = run.awaitClient("DONE");
      Duration cpu = run.proxy.cpuTime().minus(cpuBefore);
      ProcStatus after = run.proxy.procStatus();
      long peak = hwmReset ? after.vmHwmBytes() : after.vmRssBytes();
      double bytes = done.longValue("bytes");
      double seconds = done.longValue("nanos") / 1e9;
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("mibPerSec", bytes / (1 << 20) / seconds);
      values.put("cpuSecondsPerGiB", cpu.toNanos() / 1e9 / (bytes / (1L << 30)));
      values.put("cpuCores", cpu.toNanos() / 1e9 / seconds);
      values.put("peakRssGrowthBytes", (double) (peak - before.vmRssBytes()));
      values.put("wallMs", seconds * 1e3);
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(done), Steps.integrityDetail(done))
          .withNotes(notes);
    }
  }

  /** The load client: N connections stream for the warm-up, then again when told. */
  private static final class StreamLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int n = params.intCount(CONNECTIONS);
      ProxyStream[] streams = load.openEach(n, n);
      try {
        long warmup = Duration.ofSeconds(params.count(WARMUP_SECONDS)).toNanos();
        if (warmup > 0) {
          LoadSupport.parallel(n, n, false, i -> streams[i].stream(warmup));
        }
        control.send("READY");
        control.await("GO");
        long duration = Duration.ofSeconds(params.count(SECONDS)).toNanos();
        AtomicLong bytes = new AtomicLong();
        long start = System.nanoTime();
        LoadSupport.parallel(n, n, false, i -> bytes.addAndGet(streams[i].stream(duration)));
        long nanos = System.nanoTime() - start;
        for (ProxyStream s : streams) {
          load.check(s);
        }
        load.report(control, "DONE", Map.of("bytes", bytes.get(), "nanos", nanos));
        control.await("EXIT");
      } finally {
        LoadSupport.closeAll(streams);
      }
    }
  }
}
