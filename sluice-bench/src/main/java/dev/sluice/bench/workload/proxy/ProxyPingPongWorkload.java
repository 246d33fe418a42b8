package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Round trips through the proxy: every connection at once sends a small message, waits for its echo
 * (client to proxy to upstream and back) and sends the next, on its own platform thread, like the
 * pingpong workload but with the proxy in the middle.
 */
public final class ProxyPingPongWorkload extends ProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String ROUND_TRIPS = "round-trips";
  static final String SIZE = "size";
  static final String WARMUP = "warmup-round-trips";

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "usPerRoundTrip",
              Unit.MICROS,
              "wall time / (connections x round trips), all connections running at once, as in"
                  + " pingpong"),
          new Field("p50Us", Unit.MICROS, "median time of one round trip as a connection saw it"),
          new Field("p99Us", Unit.MICROS, "99th percentile of one round trip"),
          new Field(
              "cpuUsPerRoundTrip",
              Unit.MICROS,
              "the proxy's CPU time (/proc/PID/stat) per round trip"),
          new Field("wallMs", Unit.MILLIS, "the measured round trips' wall time"),
          CompilerWarmUp.ROUNDS,
          CompilerWarmUp.SHARE);

  @Override
  public String name() {
    return "proxypingpong";
  }

  @Override
  public String summary() {
    return "connections at once do small round trips through the proxy; us per round trip";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(CONNECTIONS, "32", "connections, each on its own client thread"),
        new Option(ROUND_TRIPS, "5000", "round trips per connection"),
        new Option(SIZE, "512", "bytes per message"),
        // A JVM proxy compiles its hot path for tens of thousands of round trips; fewer would
        // count that compiling as CPU per round trip (1.35x HAProxy with 200, about 1.0x after it).
        new Option(
            WARMUP,
            "3000",
            "round trips per connection in a warm-up round (repeated while a JVM proxy's"
                + " compilers are busy)"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int n = atLeast(params, CONNECTIONS, 1);
    if (n > 512) {
      throw new IllegalArgumentException("--connections must be at most 512 (one thread each)");
    }
    atLeast(params, ROUND_TRIPS, 1);
    int size = atLeast(params, SIZE, 1);
    if (size > ProxyStream.SEQUENTIAL_MAX) {
      throw new IllegalArgumentException(
          "--size must be at most " + ProxyStream.SEQUENTIAL_MAX + " (one message in flight)");
    }
    params.count(WARMUP);
    return FIELDS;
  }

  @Override
  int peakConnections(Params params) {
    return params.intCount(CONNECTIONS);
  }

  @Override
  String model(Impl impl, Params params) {
    return switch (impl) {
      case SLUICE, NETTY, NETTY_EPOLL, NETTY_OPENSSL, HAPROXY ->
          "predicted: two socket reads and two writes in the proxy per round trip; the rest is"
              + " thread wake-ups shared with the client and the upstream on two cores";
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  ChildProgram client() {
    return new PingPongLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    long roundTrips = (long) params.intCount(CONNECTIONS) * params.intCount(ROUND_TRIPS);
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      CompilerWarmUp.Warmed warmed = CompilerWarmUp.warmUp(run);
      CompilerWarmUp.Reading before = CompilerWarmUp.Reading.of(run.proxy);
      run.go("measure");
      Message done = run.awaitClient("DONE");
      CompilerWarmUp.Reading measured = CompilerWarmUp.Reading.of(run.proxy).since(before);
      Duration cpu = measured.cpu();
      double nanos = done.longValue("nanos");
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("usPerRoundTrip", nanos / 1e3 / roundTrips);
      values.put("p50Us", done.number("p50Nanos") / 1e3);
      values.put("p99Us", done.number("p99Nanos") / 1e3);
      values.put("cpuUsPerRoundTrip", cpu.toNanos() / 1e3 / roundTrips);
      values.put("wallMs", nanos / 1e6);
      warmed.report(values, measured);
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(done), Steps.integrityDetail(done))
          .withNotes(notes);
    }
  }

  /** The load client: one platform thread per connection, one message in flight each. */
  private static final class PingPongLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int n = params.intCount(CONNECTIONS);
      int size = params.intCount(SIZE);
      int warmup = params.intCount(WARMUP);
      int roundTrips = params.intCount(ROUND_TRIPS);
      ProxyStream[] streams = load.openEach(n, n);
      try {
        do {
          LoadSupport.parallel(
              n,
              n,
              false,
              i -> {
                for (int r = 0; r < warmup; r++) {
                  streams[i].exchange(size);
                }
              });
          control.send("READY");
        } while (control.await("GO").field("phase").equals("warm"));
        long[][] times = new long[n][roundTrips];
        long start = System.nanoTime();
        LoadSupport.parallel(
            n,
            n,
            false,
            i -> {
              long[] mine = times[i];
              for (int r = 0; r < roundTrips; r++) {
                long t0 = System.nanoTime();
                streams[i].exchange(size);
                mine[r] = System.nanoTime() - t0;
              }
            });
        long nanos = System.nanoTime() - start;
        for (ProxyStream s : streams) {
          load.check(s);
        }
        long[] all = Arrays.stream(times).flatMapToLong(Arrays::stream).sorted().toArray();
        load.report(
            control,
            "DONE",
            Map.of(
                "nanos", nanos,
                "p50Nanos", all[(int) ((all.length - 1) * 0.50)],
                "p99Nanos", all[(int) ((all.length - 1) * 0.99)]));
        control.await("EXIT");
      } finally {
        LoadSupport.closeAll(streams);
      }
    }
  }
}
