package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.HttpArms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small GETs through an HTTP proxy: wrk keeps {@code --connections} keep-alive connections busy for
 * a warm-up and then for {@code --seconds}, and every response is checked (status 200 and the
 * upstream's exact body, in wrk's Lua {@code response} hook). The proxy's CPU time is read from
 * {@code /proc} around the measured run only.
 */
public final class HttpWorkload extends HttpProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String SECONDS = "seconds";
  static final String WARMUP_SECONDS = "warmup-seconds";
  static final String THREADS = "threads";

  private static final List<Field> FIELDS =
      List.of(
          new Field("requestsPerSec", Unit.COUNT, "responses completed and checked per second"),
          new Field("p99Us", Unit.MICROS, "99th percentile of a request's latency, as wrk saw it"),
          new Field(
              "cpuUsPerRequest",
              Unit.MICROS,
              "the proxy's CPU time (/proc/PID/stat; nginx: master and workers) per request"),
          new Field("p50Us", Unit.MICROS, "median latency of a request"),
          new Field("cpuCores", Unit.RATIO, "the proxy's CPU seconds per second"),
          new Field("requests", Unit.COUNT, "responses in the measured run"));

  @Override
  public String name() {
    return "http";
  }

  @Override
  public String summary() {
    return "small GETs over keep-alive connections through an HTTP proxy (wrk); requests/s";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(CONNECTIONS, "64", "keep-alive connections wrk keeps busy"),
        new Option(SECONDS, "10", "the measured run's duration"),
        new Option(
            WARMUP_SECONDS,
            "20",
            "a wrk run before it, not measured: a JVM arm's JIT compiles its HTTP path meanwhile"),
        new Option(
            THREADS,
            Integer.toString(Runtime.getRuntime().availableProcessors()),
            "wrk's threads; by default this machine's cores"),
        new Option(BODY, "64", "bytes of the upstream's response body"),
        CORRUPT_OPTION);
  }

  @Override
  public List<Field> fields(Params params) {
    int connections = params.intCount(CONNECTIONS);
    int threads = params.intCount(THREADS);
    if (threads < 1 || connections < threads || connections > 9000) {
      throw new IllegalArgumentException(
          "--connections must be at least --threads (at least 1) and at most 9000");
    }
    if (params.intCount(SECONDS) < 1) {
      throw new IllegalArgumentException("--seconds must be at least 1");
    }
    params.count(WARMUP_SECONDS);
    validateBody(params);
    return FIELDS;
  }

  @Override
  ChildProgram client() {
    return null;
  }

  /** What arm {@code impl} is predicted to show. */
  static String model(Impl impl) {
    return switch (impl) {
      case SLUICE ->
          "predicted: per request a read of the request, its head parsed and rewritten"
              + " (X-Forwarded-For set), a write upstream, a read of the response, its head"
              + " rewritten, a write to the client: four system calls and two head rewrites;"
              + " no buffer held between requests";
      case HAPROXY ->
          "predicted: the same four system calls per request in C, heads parsed into HTX; the"
              + " reference the goals are stated against";
      case NGINX ->
          "predicted: the same in C, with the response buffered in the worker before it is sent"
              + " (proxy_buffering on), upstream connections from a per-worker keepalive cache";
      default -> throw Impl.unsupported("http", impl);
    };
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int connections = params.intCount(CONNECTIONS);
    int threads = params.intCount(THREADS);
    int seconds = params.intCount(SECONDS);
    int warmup = params.intCount(WARMUP_SECONDS);
    String body = body(params);
    Path dir = Files.createTempDirectory("sluice-bench-wrk");
    try (HttpRun run = HttpRun.start(context, impl, connections, upstreamBody(params), null)) {
      WrkLoad wrk = WrkLoad.prepare(dir, body);
      String failure = null;
      if (warmup > 0) {
        failure = wrk.run(run.url(), connections, threads, warmup).failure(false);
      }
      run.checkAlive();
      Duration cpuBefore = run.proxy.cpuTime();
      WrkResult measured = wrk.run(run.url(), connections, threads, seconds);
      Duration cpu = run.proxy.cpuTime().minus(cpuBefore);
      run.checkAlive();
      if (failure != null) {
        failure = "warm-up: " + failure;
      } else {
        failure = measured.failure(true);
      }
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("requestsPerSec", measured.requestsPerSec());
      values.put("p99Us", measured.p99Us());
      values.put("cpuUsPerRequest", cpu.toNanos() / 1e3 / measured.requests());
      values.put("p50Us", measured.p50Us());
      values.put("cpuCores", cpu.toNanos() / 1e3 / measured.durationUs());
      values.put("requests", (double) measured.requests());
      Map<String, String> notes = new LinkedHashMap<>(HttpArms.notes(impl));
      notes.put("loadGenerator", wrk.version());
      notes.put("model", model(impl));
      return RunResult.of(values, failure == null, failure).withNotes(notes);
    } finally {
      try (var files = Files.list(dir)) {
        for (Path p : files.toList()) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
  }
}
