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
import dev.sluice.bench.proxy.ProxyMemory;
import dev.sluice.bench.proxy.ProxyStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Seed 004's MQTT fan-out shape, the workload its review asked for: N connections through the proxy
 * burst together (each sends a burst of 4 read buffers and gets it echoed), then all idle for a
 * gap, and again, for a number of cycles. The harness reads the proxy's VmRSS at the end of every
 * gap ({@code rssPerCycle}), so a proxy that keeps what a burst made it allocate shows as growth
 * from cycle to cycle, and the burst rate says what any buffer-releasing scheme costs.
 */
public final class BurstIdleWorkload extends ProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String CYCLES = "cycles";
  static final String BURST = "burst";
  static final String GAP_MS = "gap-ms";
  static final String WARMUP = "warmup-connections";
  static final String CONNECT_PARALLEL = "connect-parallel";

  @Override
  public String name() {
    return "burstidle";
  }

  @Override
  public String summary() {
    return "N proxied pairs burst together, idle a gap, repeat; proxy RSS after every gap, MiB/s";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(CONNECTIONS, "1000", "connections, all bursting at once"),
        new Option(CYCLES, "10", "bursts per connection, each followed by a gap"),
        new Option(BURST, "auto", "bytes per connection per burst: 4 x --read-buffer"),
        new Option(GAP_MS, "100", "idle time after each burst, at whose end RSS is read"),
        new Option(WARMUP, "100", "connections per warm-up round: one burst each, then closed"),
        new Option(CONNECT_PARALLEL, "64", "connections opened at once"),
        new Option(MemoryPhases.SETTLE_MS, "2000", "quiet time before the baseline"));
  }

  static long burst(Params params) {
    return params.string(BURST).equals("auto")
        ? 4 * params.bytes(READ_BUFFER)
        : params.bytes(BURST);
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int n = atLeast(params, CONNECTIONS, 1);
    if (n > ProxyIdleWorkload.MAX_CONNECTIONS) {
      throw new IllegalArgumentException(
          "--connections must be at most " + ProxyIdleWorkload.MAX_CONNECTIONS);
    }
    int cycles = atLeast(params, CYCLES, 1);
    if (burst(params) < 1) {
      throw new IllegalArgumentException("--burst must be at least 1 byte");
    }
    atLeast(params, WARMUP, 1);
    atLeast(params, CONNECT_PARALLEL, 1);
    params.count(GAP_MS);
    params.count(MemoryPhases.SETTLE_MS);
    List<Field> fields = new ArrayList<>();
    if (cycles >= 2) {
      fields.add(
          new Field(
              "growthFromCycle2Bytes",
              Unit.BYTES,
              "the proxy's VmRSS at the end of the last gap minus at the end of cycle 2's"));
    }
    fields.add(
        new Field(
            "bytesPerConnection",
            Unit.BYTES,
            "(VmRSS at the end of the last gap - baseline before connecting) / connections"));
    fields.add(
        new Field(
            "mibPerSec",
            Unit.MIB_PER_SEC,
            "payload echoed per second of burst (connections x burst x cycles / burst time)"));
    fields.add(new Field("baselineRssBytes", Unit.BYTES, "the proxy's VmRSS before connecting"));
    fields.add(
        new Field(
            "peakRssBytes",
            Unit.BYTES,
            "the proxy's VmHWM over the cycles (reset after connecting)"));
    for (int c = 1; c <= cycles; c++) {
      fields.add(
          new Field(
              "rssPerCycle." + c,
              Unit.BYTES,
              "the proxy's VmRSS at the end of cycle " + c + "'s gap"));
    }
    fields.add(
        new Field(
            "warmupRounds",
            Unit.COUNT,
            "warm-up rounds run (JVM arms repeat it until the young generation was collected)"));
    return List.copyOf(fields);
  }

  @Override
  int peakConnections(Params params) {
    return Math.max(params.intCount(CONNECTIONS), params.intCount(WARMUP));
  }

  @Override
  String model(Impl impl, Params params) {
    long inFlight = params.intCount(CONNECTIONS) * burst(params);
    return switch (impl) {
      case SLUICE ->
          "predicted: pending copies only for bytes a peer has not taken yet, freed when drained"
              + " and capped by maxBytesInFlight (256 MiB); at the end of a gap nothing is held:"
              + " no growth from cycle 2 on";
      case NETTY, NETTY_EPOLL, NETTY_OPENSSL ->
          "predicted: the allocator grows to the bytes in flight at the burst peak (up to the "
              + Unit.BYTES.format(inFlight)
              + " each burst sends, both ways) and keeps its chunks cached: a step at cycle 1,"
              + " flat after";
      case HAPROXY ->
          "predicted: 16 KiB buffers taken from its pools during a burst and returned to them"
              + " after (pools are not given back to the system): a step at cycle 1, flat after";
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  ChildProgram client() {
    return new BurstLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int n = params.intCount(CONNECTIONS);
    int cycles = params.intCount(CYCLES);
    Duration gap = Duration.ofMillis(params.count(GAP_MS));
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      int rounds = MemoryPhases.warmUp(run);
      ProxyMemory baseline = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
      run.go("connect");
      Message connected = run.awaitClient("CONNECTED");
      if (connected.longValue("connections") != n) {
        throw new IllegalStateException(
            "expected " + n + " connections, the client has " + connected.field("connections"));
      }
      boolean hwmReset = run.proxy.resetPeakRss();
      long[] rss = new long[cycles + 1];
      long burstNanos = 0;
      long peak = 0;
      for (int c = 1; c <= cycles; c++) {
        run.go("burst");
        burstNanos += run.awaitClient("BURST").longValue("nanos");
        Thread.sleep(gap);
        ProcStatus status = run.proxy.procStatus();
        rss[c] = status.vmRssBytes();
        peak = Math.max(peak, hwmReset ? status.vmHwmBytes() : status.vmRssBytes());
      }
      run.go("done");
      Message done = run.awaitClient("DONE");

      Map<String, Double> values = new LinkedHashMap<>();
      if (cycles >= 2) {
        values.put("growthFromCycle2Bytes", (double) (rss[cycles] - rss[2]));
      }
      values.put("bytesPerConnection", (rss[cycles] - baseline.rssBytes()) / (double) n);
      double bytes = (double) n * burst(params) * cycles;
      values.put("mibPerSec", bytes / (1 << 20) / (burstNanos / 1e9));
      values.put("baselineRssBytes", (double) baseline.rssBytes());
      values.put("peakRssBytes", (double) peak);
      for (int c = 1; c <= cycles; c++) {
        values.put("rssPerCycle." + c, (double) rss[c]);
      }
      values.put("warmupRounds", (double) rounds);
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(done), Steps.integrityDetail(done))
          .withNotes(notes);
    }
  }

  /** The load client: warm-up, N connections, then one burst of all of them per GO. */
  private static final class BurstLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      long burst = burst(params);
      int warmup = params.intCount(WARMUP);
      load.exchangeEach(warmup, warmup, true, burst, null);
      control.send("WARM");
      ProxyStream[] streams = new ProxyStream[0];
      try {
        while (true) {
          String phase = control.await("GO").field("phase");
          switch (phase) {
            case "warm" -> {
              load.exchangeEach(warmup, warmup, true, burst, null);
              control.send("WARM");
            }
            case "connect" -> {
              streams =
                  load.openEach(params.intCount(CONNECTIONS), params.intCount(CONNECT_PARALLEL));
              control.send("CONNECTED", "connections", streams.length);
            }
            case "burst" -> {
              ProxyStream[] all = streams;
              long start = System.nanoTime();
              LoadSupport.parallel(all.length, all.length, true, i -> all[i].exchange(burst));
              long nanos = System.nanoTime() - start;
              for (ProxyStream s : all) {
                load.check(s);
              }
              control.send("BURST", "nanos", nanos);
            }
            case "done" -> {
              load.report(control, "DONE", Map.of());
              control.await("EXIT");
              return;
            }
            default -> throw new IllegalStateException("unknown phase " + phase);
          }
        }
      } finally {
        LoadSupport.closeAll(streams);
      }
    }
  }
}
