package dev.sluice.bench.workload.proxy;

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
import dev.sluice.bench.proxy.HttpArms;
import dev.sluice.bench.proxy.ProxyMemory;
import dev.sluice.bench.proxy.TcpSockets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Idle keep-alive HTTP connections through the proxy: N client connections each send one GET, get
 * the whole response (checked) and park. The proxy's memory is read from outside it, as proxyidle
 * reads it (after a warm-up and a settle, before and after; for a JVM arm its live heap too), and
 * the connections it holds at that moment, client side and upstream side, are counted from the
 * kernel's tables. Then every parked connection sends one more request: each must still be open and
 * answered.
 */
public final class HttpIdleWorkload extends HttpProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String PARALLEL = "parallel";
  static final String WARMUP = "warmup-connections";

  /** A parked connection is a descriptor in the client and up to two in the proxy. */
  static final int MAX_CONNECTIONS = 9000;

  @Override
  public String name() {
    return "httpidle";
  }

  @Override
  public String summary() {
    return "N keep-alive HTTP connections, one GET each, parked; proxy RSS and heap per connection";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(CONNECTIONS, "2000", "parked keep-alive connections (max 9000)"),
        new Option(PARALLEL, "64", "connections opening and sending their request at once"),
        new Option(WARMUP, "500", "connections per warm-up round: one GET each, then closed"),
        new Option(MemoryPhases.SETTLE_MS, "2000", "quiet time before each memory reading"),
        new Option(BODY, "64", "bytes of the upstream's response body"),
        CORRUPT_OPTION);
  }

  @Override
  public List<Field> fields(Params params) {
    int n = params.intCount(CONNECTIONS);
    if (n < 1 || n > MAX_CONNECTIONS) {
      throw new IllegalArgumentException("--connections must be 1 .. " + MAX_CONNECTIONS);
    }
    if (params.intCount(PARALLEL) < 1 || params.intCount(WARMUP) < 1) {
      throw new IllegalArgumentException("--parallel and --warmup-connections must be at least 1");
    }
    params.count(MemoryPhases.SETTLE_MS);
    validateBody(params);
    List<Field> fields = new ArrayList<>();
    fields.add(
        new Field(
            "bytesPerConnection",
            Unit.BYTES,
            "growth of the proxy's VmRSS (nginx: master and workers summed) / parked connections"));
    fields.add(
        new Field(
            "heapPerConnection",
            Unit.BYTES,
            "Sluice: growth of its live heap (jcmd GC.class_histogram) / parked connections"));
    fields.add(
        new Field(
            "poolPerConnection",
            Unit.BYTES,
            "HAProxy: growth of the bytes in use in its pools (show info PoolUsed_bytes) / parked"
                + " connections"));
    fields.add(
        new Field(
            "upstreamConnections",
            Unit.COUNT,
            "connections the proxy held to the upstream at the reading (/proc/net/tcp)"));
    fields.add(
        new Field(
            "clientConnections",
            Unit.COUNT,
            "client connections the proxy held at the reading (/proc/net/tcp); must be N"));
    fields.add(
        new Field("baselineRssBytes", Unit.BYTES, "the proxy's VmRSS before the connections"));
    fields.add(new Field("parkedRssBytes", Unit.BYTES, "its VmRSS with every connection parked"));
    fields.add(
        new Field(
            "warmupRounds",
            Unit.COUNT,
            "warm-up rounds run (a JVM arm repeats it until its young generation was collected)"));
    fields.add(new Field("connectMs", Unit.MILLIS, "time to open, request and check every one"));
    return List.copyOf(fields);
  }

  @Override
  ChildProgram client() {
    return new HttpIdleLoad();
  }

  /** What arm {@code impl} is predicted to show. */
  static String model(Impl impl) {
    return switch (impl) {
      case SLUICE ->
          "predicted: no buffer per parked connection (issue 14), so RSS per connection ~ its live"
              + " heap: the client socket, the pair and the HTTP state; no upstream connection per"
              + " client (the upstream pool keeps at most 64 idle ones per upstream per loop)";
      case HAPROXY ->
          "predicted: buffers released when empty; its pools hold a session, a stream and the"
              + " client connection, and idle server connections in its reuse pool (purged over"
              + " time)";
      case NGINX ->
          "predicted: a connection structure and its read buffer is freed when idle (lingering"
              + " keep-alive); at most 64 idle upstream connections per worker";
      default -> throw Impl.unsupported("httpidle", impl);
    };
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int n = params.intCount(CONNECTIONS);
    int peak = Math.max(n, params.intCount(PARALLEL));
    try (HttpRun run =
        HttpRun.start(context, impl, peak, upstreamBody(params), Params.of(Map.of()))) {
      int rounds = MemoryPhases.warmUp(run.proxy, run);
      ProxyMemory baseline = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
      run.go("park");
      Message parked = run.awaitClient("PARKED");
      ProxyMemory after = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
      int clients = TcpSockets.establishedFrom(run.proxy, run.setup.listen().getPort());
      int upstreams = TcpSockets.establishedTo(run.proxy, run.setup.upstream().getPort());
      run.go("verify");
      Message verified = run.awaitClient("VERIFIED");
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("bytesPerConnection", (after.rssBytes() - baseline.rssBytes()) / (double) n);
      if (run.proxy.jvm()) {
        values.put("heapPerConnection", (after.heapBytes() - baseline.heapBytes()) / (double) n);
      }
      if (after.poolUsedBytes() >= 0) {
        values.put(
            "poolPerConnection", (after.poolUsedBytes() - baseline.poolUsedBytes()) / (double) n);
      }
      values.put("upstreamConnections", (double) upstreams);
      values.put("clientConnections", (double) clients);
      values.put("baselineRssBytes", (double) baseline.rssBytes());
      values.put("parkedRssBytes", (double) after.rssBytes());
      values.put("warmupRounds", (double) rounds);
      values.put("connectMs", parked.number("nanos") / 1e6);
      String failure = null;
      if (!Steps.integrityOk(parked)) {
        failure = "parking: " + Steps.integrityDetail(parked);
      } else if (parked.longValue("connections") != n) {
        failure =
            "expected " + n + " parked connections, the client has " + parked.field("connections");
      } else if (clients != n) {
        failure =
            "the proxy held "
                + clients
                + " established client connections at the reading, not "
                + n;
      } else if (!Steps.integrityOk(verified)) {
        failure = "the last request on each parked connection: " + Steps.integrityDetail(verified);
      }
      Map<String, String> notes = new LinkedHashMap<>(HttpArms.notes(impl));
      notes.put("model", model(impl));
      return RunResult.of(values, failure == null, failure).withNotes(notes);
    }
  }
}
