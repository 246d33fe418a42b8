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
import dev.sluice.bench.proxy.ProxyMemory;
import dev.sluice.bench.proxy.ProxyStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Idle proxied pairs (seed 004, measured as its last comment says it should have been): N client
 * connections through the proxy, each sends a burst, gets it echoed and parks. The proxy's VmRSS is
 * read from {@code /proc} by the harness, after a warm-up and a settle, before and after; the load
 * client and the echo upstream are other processes. With {@code --churn C}, C short connections
 * (connect, 64 B echoed, close) go through the proxy before the baseline, so the figure is that of
 * a proxy that has carried traffic.
 */
public final class ProxyIdleWorkload extends ProxyWorkload {
  static final String CONNECTIONS = "connections";
  static final String BURST = "burst";
  static final String PARALLEL = "parallel";
  static final String WARMUP = "warmup-connections";
  static final String CHURN = "churn";
  static final String CHURN_PARALLEL = "churn-parallel";

  /** Bytes each churned connection echoes. */
  static final int SMALL_ECHO = 64;

  /** A proxy holds two descriptors per pair, and 20,000 open files is the limit per process. */
  static final int MAX_CONNECTIONS = 9900;

  @Override
  public String name() {
    return "proxyidle";
  }

  @Override
  public String summary() {
    return "N proxied pairs burst once, are echoed and park; proxy RSS and heap per pair";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(CONNECTIONS, "auto", "parked pairs: 9000, or 5000 with --tls (max 9900)"),
        new Option(BURST, "64k", "bytes each connection sends (and gets echoed) before parking"),
        new Option(PARALLEL, "64", "connections opening and bursting at once"),
        new Option(WARMUP, "500", "connections per warm-up round: burst, echo, close"),
        new Option(CHURN, "0", "short connections (connect, 64 B echo, close) before measuring"),
        new Option(CHURN_PARALLEL, "8", "churned connections at once"),
        new Option(MemoryPhases.SETTLE_MS, "2000", "quiet time before each memory reading"));
  }

  static int connections(Params params) {
    String value = params.string(CONNECTIONS);
    if (value.equals("auto")) {
      return tls(params) ? 5000 : 9000;
    }
    return params.intCount(CONNECTIONS);
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int n = connections(params);
    if (n < 1 || n > MAX_CONNECTIONS) {
      throw new IllegalArgumentException(
          "--connections must be 1 .. "
              + MAX_CONNECTIONS
              + " (a proxy holds two files per pair; the limit is 20,000 a process)");
    }
    atLeast(params, BURST, 1);
    atLeast(params, PARALLEL, 1);
    atLeast(params, WARMUP, 1);
    atLeast(params, CHURN_PARALLEL, 1);
    params.count(CHURN);
    params.count(MemoryPhases.SETTLE_MS);
    List<Field> fields = new ArrayList<>();
    fields.add(
        new Field(
            "bytesPerConnection",
            Unit.BYTES,
            "growth of the proxy's VmRSS (from /proc, by the harness) / parked pairs"));
    fields.add(
        new Field(
            "heapPerConnection",
            Unit.BYTES,
            "JVM arms: growth of the proxy's live heap (jcmd GC.class_histogram) / parked pairs"));
    fields.add(
        new Field(
            "poolPerConnection",
            Unit.BYTES,
            "HAProxy: growth of the bytes in use in its pools (show info PoolUsed_bytes) / pairs"));
    fields.add(new Field("baselineRssBytes", Unit.BYTES, "the proxy's VmRSS before the pairs"));
    fields.add(new Field("parkedRssBytes", Unit.BYTES, "the proxy's VmRSS with every pair parked"));
    if (params.count(CHURN) > 0) {
      fields.add(
          new Field(
              "churnRssGrowthBytes",
              Unit.BYTES,
              "growth of the proxy's VmRSS over the churn (both readings settled)"));
      fields.add(
          new Field(
              "churnHeapGrowthBytes",
              Unit.BYTES,
              "JVM arms: growth of the proxy's live heap over the churn"));
    }
    fields.add(
        new Field(
            "warmupRounds",
            Unit.COUNT,
            "warm-up rounds run (JVM arms repeat it until the young generation was collected)"));
    fields.add(new Field("connectMs", Unit.MILLIS, "time to open, burst and verify every pair"));
    return List.copyOf(fields);
  }

  @Override
  int peakConnections(Params params) {
    return Math.max(connections(params), params.intCount(PARALLEL));
  }

  /** What TLS adds to a Sluice pair, by engine (and, on OpenSSL's, the library it loads). */
  private static String tlsModel(String engine) {
    if ("jdk".equals(engine)) {
      return ", plus ~4.6 KB of JDK SSLEngine state (tlsidle)";
    }
    boolean boring =
        dev.sluice.tls.openssl.OpenSsl.library()
            == dev.sluice.tls.openssl.OpenSsl.Library.BORINGSSL;
    String openssl =
        boring
            ? ", plus BoringSSL's ~3.4 KB per connection (tls-library-costs.c)"
            : ", plus OpenSSL 3.0's ~14 KB per connection (openssl-connection-memory.c)";
    return "openssl".equals(engine)
        ? openssl
        : openssl + " where auto takes OpenSSL's engine, else ~4.6 KB of JDK SSLEngine state";
  }

  @Override
  String model(Impl impl, Params params) {
    boolean tls = tls(params);
    return switch (impl) {
      case SLUICE ->
          "predicted: no buffer per parked pair (an idle pair holds none), so RSS per pair ~ its"
              + " live heap: on epoll the pair's own objects (~1 KB: two connections, write"
              + " queues, legs and sockets), on NIO also the JDK's two socket channels and keys ("
              + (ProxyArms.jvmFlags().contains("-XX:+UseCompactObjectHeaders")
                  ? "~1.1 KB with compact object headers"
                  : "~1.3 KB")
              + ", DESIGN)"
              + (tls ? tlsModel(tlsEngine(params)) : "");
      case NETTY ->
          "predicted: no ByteBuf per parked pair (each read is released once written); heap ~ two"
              + " NioSocketChannels with pipelines (~1.7 KiB each as a server connection in"
              + " tlsidle --transport plain); pooled chunks scale with bursts in flight, not pairs"
              + (tls ? "; plus SslHandler and the JDK engine (~4.9 KiB, tlsidle)" : "");
      case NETTY_EPOLL ->
          "predicted: as the netty arm, with two EpollSocketChannels per pair in place of NIO's"
              + " (no JDK SocketChannel or selection key behind them)"
              + (tls
                  ? "; plus SslHandler on BoringSSL as the netty-openssl arm's (tlsidle: 3.2 KiB of"
                      + " heap, ~6 KiB of C memory per idle TLS connection)"
                  : "");
      case NETTY_OPENSSL ->
          "predicted: the netty arm's pair, with SslHandler on BoringSSL: ~3.2 KiB of heap and"
              + " ~6 KiB of C memory per idle TLS connection (tlsidle: 9.2 KiB RSS, 3.2 KiB heap)";
      case HAPROXY ->
          "predicted: no buffer per parked pair (16 KiB buffers are released when empty); its"
              + " pools hold a session, a stream and two connections per pair (a few KB)"
              + (tls ? "; plus OpenSSL's per-connection state, outside the pools" : "");
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  ChildProgram client() {
    return new IdleLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    int n = connections(params);
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      int rounds = MemoryPhases.warmUp(run);
      Map<String, Double> values = new LinkedHashMap<>();
      if (params.count(CHURN) > 0) {
        ProxyMemory beforeChurn = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
        run.go("churn");
        run.awaitClient("CHURNED");
        ProxyMemory afterChurn = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
        values.put(
            "churnRssGrowthBytes", (double) (afterChurn.rssBytes() - beforeChurn.rssBytes()));
        if (run.proxy.jvm()) {
          values.put(
              "churnHeapGrowthBytes", (double) (afterChurn.heapBytes() - beforeChurn.heapBytes()));
        }
      }
      ProxyMemory baseline = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
      run.go("park");
      Message parked = run.awaitClient("PARKED");
      ProxyMemory after = ProxyMemory.settleAndRead(run.proxy, MemoryPhases.settle(params));
      if (parked.longValue("connections") != n) {
        throw new IllegalStateException(
            "expected " + n + " parked pairs, the client has " + parked.field("connections"));
      }
      values.put("bytesPerConnection", (after.rssBytes() - baseline.rssBytes()) / (double) n);
      if (run.proxy.jvm()) {
        values.put("heapPerConnection", (after.heapBytes() - baseline.heapBytes()) / (double) n);
      }
      if (after.poolUsedBytes() >= 0) {
        values.put(
            "poolPerConnection", (after.poolUsedBytes() - baseline.poolUsedBytes()) / (double) n);
      }
      values.put("baselineRssBytes", (double) baseline.rssBytes());
      values.put("parkedRssBytes", (double) after.rssBytes());
      values.put("warmupRounds", (double) rounds);
      values.put("connectMs", parked.number("nanos") / 1e6);
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      notes.put("model", model(impl, params));
      return RunResult.of(values, Steps.integrityOk(parked), Steps.integrityDetail(parked))
          .withNotes(notes);
    }
  }

  /** The load client: warm-up rounds, the churn, then N parked pairs until EXIT. */
  private static final class IdleLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int parallel = params.intCount(PARALLEL);
      long burst = params.bytes(BURST);
      load.exchangeEach(params.intCount(WARMUP), parallel, true, burst, null);
      control.send("WARM");
      ProxyStream[] parked = new ProxyStream[connections(params)];
      try {
        while (true) {
          String phase = control.await("GO").field("phase");
          if (phase.equals("warm")) {
            load.exchangeEach(params.intCount(WARMUP), parallel, true, burst, null);
            control.send("WARM");
          } else if (phase.equals("churn")) {
            load.exchangeEach(
                params.intCount(CHURN), params.intCount(CHURN_PARALLEL), false, SMALL_ECHO, null);
            control.send("CHURNED");
          } else if (phase.equals("park")) {
            long start = System.nanoTime();
            load.exchangeEach(parked.length, parallel, true, burst, parked);
            long nanos = System.nanoTime() - start;
            long open = java.util.Arrays.stream(parked).filter(s -> s != null).count();
            load.report(control, "PARKED", Map.of("connections", open, "nanos", nanos));
            break;
          } else {
            throw new IllegalStateException("unknown phase " + phase);
          }
        }
        control.await("EXIT");
      } finally {
        LoadSupport.closeAll(parked);
      }
    }
  }
}
