package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.ProcStatus;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.BulkSink;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyStream;
import dev.sluice.net.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One-way bulk through the proxy (issue 15): each connection streams the pattern client to proxy to
 * upstream for a fixed time, and nothing comes back. The upstream is a sink in a process of its own
 * ({@link BulkSink}) that checks every byte and counts, so each byte crosses the proxy once and the
 * proxy, not an echo, is the work; where splice applies (Sluice on epoll, plain TCP) this is the
 * workload that shows it. The harness reads the proxy's CPU time from {@code /proc/PID/stat} before
 * and after, so the figure is also CPU per GiB.
 */
public final class ProxyBulkWorkload extends ProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String SECONDS = "seconds";
  static final String WARMUP_SECONDS = "warmup-seconds";

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "mibPerSec",
              Unit.MIB_PER_SEC,
              "payload delivered to the upstream per second, all connections (one direction:"
                  + " each byte crosses the proxy once)"),
          new Field(
              "cpuSecondsPerGiB",
              Unit.SECONDS,
              "the proxy's CPU seconds (utime + stime from /proc/PID/stat) per GiB delivered"),
          new Field("cpuCores", Unit.RATIO, "the proxy's CPU seconds per second of the run"),
          new Field(
              "peakRssGrowthBytes",
              Unit.BYTES,
              "the proxy's VmHWM during the run minus its VmRSS before"),
          new Field(
              "wallMs",
              Unit.MILLIS,
              "the run's duration, to the end of the last stream at the upstream"));

  @Override
  public String name() {
    return "proxybulk";
  }

  @Override
  public String summary() {
    return "few connections stream one way through the proxy to a sink; MiB/s and the proxy's CPU"
        + " per GiB";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(CONNECTIONS, "4", "connections, each streaming one way at full speed"),
        new Option(SECONDS, "8", "how long each streams"),
        new Option(WARMUP_SECONDS, "2", "streaming on the same connections before measuring"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int n = atLeast(params, CONNECTIONS, 1);
    if (n > 256) {
      throw new IllegalArgumentException(
          "--connections must be at most 256 (a thread each in the client and the sink)");
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
      case SLUICE -> sluiceModel(params);
      case NETTY, NETTY_EPOLL, NETTY_OPENSSL ->
          "predicted: one pooled buffer per read (adaptive size, up to 64 KiB), written and"
              + " released; the next read only after the write completes: two copies through user"
              + " space per byte"
              + (tls(params)
                  ? ", plus opening each record ("
                      + (impl == Impl.NETTY ? "the JDK's engine" : "BoringSSL")
                      + ")"
                  : "");
      case HAPROXY ->
          "predicted: a 16 KiB buffer (bufsize) per direction, no splice (nosplice): two copies"
              + " through user space per byte"
              + (tls(params) ? ", plus opening each record" : "");
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  private static String sluiceModel(Params params) {
    String copy =
        "each read is written to the upstream from the loop's slab: two copies through user space"
            + " per byte";
    if (tls(params)) {
      return "predicted: a TLS leg always copies: " + copy + ", plus opening each record";
    }
    if ("off".equals(splice(params))) {
      return "predicted: splice off: " + copy;
    }
    if (JvmFlags.transport() == Transport.NIO) {
      return "predicted: the NIO transport never splices: " + copy;
    }
    return "predicted: on epoll (auto picks it on Linux) a streaming pair gets a pipe and its"
        + " bytes move socket to pipe to socket in the kernel (splice), none through user space:"
        + " less CPU per GiB than any copying arm; where the NIO transport runs instead, "
        + copy;
  }

  @Override
  ChildProgram client() {
    return new PourLoad();
  }

  @Override
  ChildProgram upstream() {
    return new BulkSink();
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>(super.conditions(params));
    conditions.put("measured", "the proxy process; load client and sink upstream are plain JDK");
    conditions.put(
        "processes",
        "proxy, load client and sink upstream are three processes; the harness reads the proxy's"
            + " /proc/PID/status and stat");
    conditions.put(
        "upstream",
        "a sink: one platform thread and a 256 KiB direct buffer per connection, blocking reads,"
            + " every byte checked against its stream, nothing echoed");
    return conditions;
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int n = peakConnections(params);
    try (ProxyRun run =
        ProxyRun.start(context, impl, n, Params.of(Map.of(BulkSink.STREAMS, String.valueOf(n))))) {
      run.awaitClient("READY");
      ProcStatus before = run.proxy.procStatus();
      Duration cpuBefore = run.proxy.cpuTime();
      boolean hwmReset = run.proxy.resetPeakRss();
      run.go("measure");
      Message done = run.awaitClient("DONE");
      Message tally =
          run.askUpstream(
              Message.of(
                  "TALLY",
                  "sent",
                  done.field("sent"),
                  "waitMs",
                  context.stepTimeout().toMillis() / 2),
              "TALLY");
      Duration cpu = run.proxy.cpuTime().minus(cpuBefore);
      ProcStatus after = run.proxy.procStatus();
      long peak = hwmReset ? after.vmHwmBytes() : after.vmRssBytes();
      double bytes = done.longValue("bytes");
      double seconds = (tally.longValue("lastEndNanos") - done.longValue("startNanos")) / 1e9;
      Map<String, Double> values = new LinkedHashMap<>();
      if (tally.longValue("lastEndNanos") > 0) { // some stream ended: the run has a duration
        values.put("mibPerSec", bytes / (1 << 20) / seconds);
        values.put("cpuSecondsPerGiB", cpu.toNanos() / 1e9 / (bytes / (1L << 30)));
        values.put("cpuCores", cpu.toNanos() / 1e9 / seconds);
        values.put("peakRssGrowthBytes", (double) (peak - before.vmRssBytes()));
        values.put("wallMs", seconds * 1e3);
      }
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(tally), Steps.integrityDetail(tally))
          .withNotes(notes);
    }
  }

  /**
   * The load client: N connections pour their streams for the warm-up, then again when told, then
   * end them (FIN) and report each stream's length for the sink to check.
   */
  private static final class PourLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int n = params.intCount(CONNECTIONS);
      ProxyStream[] streams = load.openEach(n, n);
      try {
        long warmup = Duration.ofSeconds(params.count(WARMUP_SECONDS)).toNanos();
        if (warmup > 0) {
          LoadSupport.parallel(n, n, false, i -> streams[i].pour(warmup));
        }
        control.send("READY");
        control.await("GO");
        long duration = Duration.ofSeconds(params.count(SECONDS)).toNanos();
        AtomicLong bytes = new AtomicLong();
        long start = System.nanoTime();
        LoadSupport.parallel(
            n,
            n,
            false,
            i -> {
              bytes.addAndGet(streams[i].pour(duration));
              streams[i].finishSending();
            });
        StringJoiner sent = new StringJoiner(",");
        for (ProxyStream s : streams) {
          sent.add(s.seed() + ":" + s.sent());
        }
        control.send("DONE", "bytes", bytes.get(), "startNanos", start, "sent", sent.toString());
        control.await("EXIT");
      } finally {
        LoadSupport.closeAll(streams);
      }
    }
  }
}
