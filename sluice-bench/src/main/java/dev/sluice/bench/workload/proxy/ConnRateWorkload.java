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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * New connections per second through the proxy: a fixed number of short connections, a few at once,
 * each connects (with {@code --tls}: and completes a handshake), sends a small message, reads its
 * echo, checks it and closes. Each one costs the proxy an accept, an upstream connect and two
 * closes.
 */
public final class ConnRateWorkload extends ProxyWorkload {
  static final String COUNT = "count";
  static final String PARALLEL = "parallel";
  static final String MESSAGE = "message";
  static final String WARMUP = "warmup-count";

  private static final List<Field> FIELDS =
      List.of(
          new Field("connPerSec", Unit.COUNT, "connections opened, echoed and closed per second"),
          new Field(
              "cpuUsPerConnection",
              Unit.MICROS,
              "the proxy's CPU time (/proc/PID/stat) per connection"),
          new Field("wallMs", Unit.MILLIS, "time for all of them"),
          CompilerWarmUp.ROUNDS,
          CompilerWarmUp.SHARE);

  @Override
  public String name() {
    return "connrate";
  }

  @Override
  public String summary() {
    return "short connections (connect, small echo, close) through the proxy; conn/s";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(COUNT, "20000", "connections measured"),
        new Option(PARALLEL, "8", "connections at once (one client thread each)"),
        new Option(MESSAGE, "64", "bytes each connection echoes"),
        // A JVM proxy's compiler threads were still at work after 1,000 connections: 40% of the
        // proxy's CPU in the measured phase. A round of 20,000 is repeated while they are busy.
        new Option(
            WARMUP,
            "20000",
            "connections in a warm-up round (repeated while a JVM proxy's compilers are busy)"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    atLeast(params, COUNT, 1);
    int parallel = atLeast(params, PARALLEL, 1);
    if (parallel > 512) {
      throw new IllegalArgumentException("--parallel must be at most 512 (one thread each)");
    }
    int message = atLeast(params, MESSAGE, 1);
    if (message > ProxyStream.SEQUENTIAL_MAX) {
      throw new IllegalArgumentException(
          "--message must be at most " + ProxyStream.SEQUENTIAL_MAX + " bytes");
    }
    params.count(WARMUP);
    return FIELDS;
  }

  @Override
  int peakConnections(Params params) {
    return params.intCount(PARALLEL);
  }

  @Override
  String model(Impl impl, Params params) {
    return switch (impl) {
      case SLUICE, NETTY, NETTY_EPOLL, NETTY_OPENSSL, HAPROXY ->
          "predicted: bound by accept, connect and close system calls in three processes"
              + (tls(params) ? ", and by the TLS handshake (key exchange) in client and proxy" : "")
              + "; nothing is kept per closed connection";
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  ChildProgram client() {
    return new ConnRateLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int count = params.intCount(COUNT);
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      CompilerWarmUp.Warmed warmed = CompilerWarmUp.warmUp(run);
      CompilerWarmUp.Reading before = CompilerWarmUp.Reading.of(run.proxy);
      run.go("measure");
      Message done = run.awaitClient("DONE");
      CompilerWarmUp.Reading measured = CompilerWarmUp.Reading.of(run.proxy).since(before);
      Duration cpu = measured.cpu();
      double seconds = done.longValue("nanos") / 1e9;
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("connPerSec", count / seconds);
      values.put("cpuUsPerConnection", cpu.toNanos() / 1e3 / count);
      values.put("wallMs", seconds * 1e3);
      warmed.report(values, measured);
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(done), Steps.integrityDetail(done))
          .withNotes(notes);
    }
  }

  /** The load client: warm-up rounds, then the measured connections when told. */
  private static final class ConnRateLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int parallel = params.intCount(PARALLEL);
      int message = params.intCount(MESSAGE);
      do {
        load.exchangeEach(params.intCount(WARMUP), parallel, false, message, null);
        control.send("READY");
      } while (control.await("GO").field("phase").equals("warm"));
      long start = System.nanoTime();
      load.exchangeEach(params.intCount(COUNT), parallel, false, message, null);
      long nanos = System.nanoTime() - start;
      load.report(control, "DONE", Map.of("nanos", nanos));
      control.await("EXIT");
    }
  }
}
