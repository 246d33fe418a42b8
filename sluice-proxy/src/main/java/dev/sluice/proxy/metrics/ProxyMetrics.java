package dev.sluice.proxy.metrics;

import dev.sluice.memory.MemoryStats;
import dev.sluice.net.EventLoop;
import dev.sluice.proxy.Version;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.Health;
import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.ExchangeRecord;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.runtime.ProxyRuntime;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The proxy's Prometheus metrics. Almost all are read when scraped, from the counters the proxy
 * keeps anyway (no cost on the hot path); the connect-time histogram is observed as pairs connect,
 * the request-duration one as HTTP requests end. Names follow Prometheus conventions: {@code
 * sluice_} prefix, base units, {@code _total} counters.
 */
public final class ProxyMetrics implements PairObserver {
  private static final double[] CONNECT_BUCKETS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  /**
   * HTTP requests through the proxy: from half a millisecond (a loopback or same-rack upstream
   * answers within it) to a minute (the default responseHead timeout), in 1-2.5-5 steps.
   */
  private static final double[] REQUEST_BUCKETS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private volatile ProxyRuntime runtime;
  private volatile Sampler sampler;
  private final Histogram connectDuration;
  private volatile boolean jvmMetricsRegistered;

  /**
   * Each upstream's connect-time series, looked up once per name: client_java's label lookup
   * allocates more, and it would run for every new pair. Keyed by names, not targets, so that old
   * targets are not kept alive.
   */
  private final Map<UpstreamSeries, DistributionDataPoint> connectDurationOf =
      new ConcurrentHashMap<>();

  /** An upstream's labels: a reload's new target for the same upstream finds the same series. */
  private record UpstreamSeries(String cluster, String upstream) {}

  private final Histogram requestDuration;

  /**
   * Each listener's request-duration series by route, looked up without allocating (one lookup per
   * request): listener name, then route.
   */
  private final Map<String, Map<String, DistributionDataPoint>> requestDurationOf =
      new ConcurrentHashMap<>();

  private final Counter reloads;
  private volatile LongSupplier accessLogLines = () -> 0;
  private volatile LongSupplier accessLogDropped = () -> 0;
  private volatile long lastReloadMillis = System.currentTimeMillis();

  /**
   * The metrics; those read from the runtime report nothing until {@link #attach} (the runtime
   * needs this as its observer before it exists).
   */
  public ProxyMetrics() {
    GaugeWithCallback.builder()
        .name("sluice_build_info")
        .help("Sluice's version")
        .labelNames("version")
        .callback(cb -> cb.call(1, Version.NUMBER))
        .register(registry);
    listenerMetrics();
    upstreamMetrics();
    connectDuration =
        Histogram.builder()
            .name("sluice_upstream_connect_duration_seconds")
            .help("From a pair's first connect attempt to its upstream being up, retries included")
            .labelNames("cluster", "upstream")
            .classicOnly()
            .classicUpperBounds(CONNECT_BUCKETS)
            .withoutExemplars()
            .register(registry);
    requestDuration =
        Histogram.builder()
            .name("sluice_http_request_duration_seconds")
            .help(
                "HTTP listeners' requests, from their first byte to the last of their response"
                    + " (the proxy's own answers too); counted with sluice_http_responses_total")
            .labelNames("listener", "route")
            .classicOnly()
            .classicUpperBounds(REQUEST_BUCKETS)
            .withoutExemplars()
            .register(registry);
    reloads =
        Counter.builder()
            .name("sluice_config_reloads_total")
            .help("Configuration reloads, applied (ok) or rejected (failed)")
            .labelNames("result")
            .register(registry);
    reloads.labelValues("ok");
    reloads.labelValues("failed");
    GaugeWithCallback.builder()
        .name("sluice_config_last_reload_success_timestamp_seconds")
        .help("When the running configuration was applied (start or reload)")
        .callback(cb -> cb.call(lastReloadMillis / 1000.0))
        .register(registry);
    memoryMetrics();
    loopMetrics();
    CounterWithCallback.builder()
        .name("sluice_access_log_lines_total")
        .help("Access log lines written")
        .callback(cb -> cb.call(accessLogLines.getAsLong()))
        .register(registry);
    CounterWithCallback.builder()
        .name("sluice_access_log_dropped_total")
        .help("Access log lines dropped because the writer fell behind or failed")
        .callback(cb -> cb.call(accessLogDropped.getAsLong()))
        .register(registry);
  }

  /** Reads the families of {@code runtime} from now on. */
  public void attach(ProxyRuntime runtime, Sampler sampler) {
    this.sampler = sampler;
    this.runtime = runtime;
  }

  /** The registry to scrape; the first call registers the JVM's own metrics. */
  public PrometheusRegistry registry() {
    if (!jvmMetricsRegistered) {
      registerJvmMetrics();
    }
    return registry;
  }

  /**
   * The client's JVM metrics ({@code jvm_*}: memory pools, GC, threads, classes) load a few hundred
   * classes of java.management and the client at start: registered on the first scrape, so that a
   * proxy nobody scrapes does not pay for them.
   */
  private synchronized void registerJvmMetrics() {
    if (!jvmMetricsRegistered) {
      JvmMetrics.builder().register(registry);
      jvmMetricsRegistered = true;
    }
  }

  /** Whether the JVM's metrics are registered yet (they are from the first scrape on). */
  boolean jvmMetricsRegistered() {
    return jvmMetricsRegistered;
  }

  /** A reload was applied ({@code ok}) or rejected. */
  public void reloaded(boolean ok) {
    reloads.labelValues(ok ? "ok" : "failed").inc();
    if (ok) {
      lastReloadMillis = System.currentTimeMillis();
    }
  }

  /** Where the access log's counts come from (it may be replaced by a reload). */
  public void accessLogCounts(LongSupplier lines, LongSupplier dropped) {
    accessLogLines = lines;
    accessLogDropped = dropped;
  }

  @Override
  public void onPairForwarding(ListenerRuntime listener, Pair pair) {
    if (pair.facts().target() instanceof UpstreamTarget upstream
        && pair.facts().connectNanos() >= 0
        && !pair.upstreamReused()) { // a connection taken from a pool made no connect
      connectDurationOf
          .computeIfAbsent(
              new UpstreamSeries(upstream.cluster().name(), upstream.name()),
              key -> connectDuration.labelValues(key.cluster(), key.upstream()))
          .observe(Unit.nanosToSeconds(pair.facts().connectNanos()));
    }
  }

  @Override
  public void onHttpExchange(ListenerRuntime listener, Pair pair, ExchangeRecord exchange) {
    if (exchange.hasResponse()) { // as sluice_http_responses_total counts them
      requestSeries(listener.name(), exchange.route())
          .observe(Unit.nanosToSeconds(exchange.durationNanos()));
    }
  }

  private DistributionDataPoint requestSeries(String listener, String route) {
    String label = route == null ? "none" : route;
    Map<String, DistributionDataPoint> byRoute = requestDurationOf.get(listener);
    if (byRoute == null) {
      byRoute = requestDurationOf.computeIfAbsent(listener, l -> new ConcurrentHashMap<>());
    }
    DistributionDataPoint series = byRoute.get(label);
    if (series == null) {
      series = byRoute.computeIfAbsent(label, r -> requestDuration.labelValues(listener, r));
    }
    return series;
  }

  @Override
  public void onPairClosed(ListenerRuntime listener, Pair pair) {}

  // ---- the families ----

  private void listenerMetrics() {
    listenerGauge(
        "sluice_listener_up",
        "1 when the listener is bound and accepting",
        l -> l.isBound() ? 1 : 0);
    listenerGauge(
        "sluice_connections_active", "Client connections open now", l -> l.stats().openCount());
    listenerGauge(
        "sluice_listener_max_connections",
        "The listener's maxConnections (0: no limit)",
        l -> l.config().maxConnections());
    listenerCounter(
        "sluice_connections_accepted_total",
        "Client connections accepted",
        l -> l.stats().acceptedCount());
    listenerCounter(
        "sluice_listener_received_bytes_total",
        "Bytes read from clients",
        l -> l.stats().bytesFromClients());
    listenerCounter(
        "sluice_listener_sent_bytes_total",
        "Bytes read from upstreams, for the clients",
        l -> l.stats().bytesFromUpstreams());
    listenerCounter(
        "sluice_listener_accept_backoffs_total",
        "Times accepting paused because file descriptors ran out",
        ListenerRuntime::acceptBackoffs);
    CounterWithCallback.builder()
        .name("sluice_connections_closed_total")
        .help("Pairs ended, by the first cause (client_eof and upstream_eof are orderly)")
        .labelNames("listener", "cause")
        .callback(
            cb -> {
              for (ListenerRuntime l : listeners()) {
                for (Map.Entry<CloseCause, Long> e : l.stats().closedByCause().entrySet()) {
                  cb.call(e.getValue(), l.name(), e.getKey().label());
                }
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("sluice_http_responses_total")
        .help("HTTP listeners' responses, by route (cluster) and status class; the proxy's own too")
        .labelNames("listener", "route", "status")
        .callback(
            cb -> {
              for (ListenerRuntime l : listeners()) {
                l.stats()
                    .httpResponses()
                    .forEach(
                        (route, byClass) ->
                            byClass.forEach((status, n) -> cb.call(n, l.name(), route, status)));
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_listener_tls_engine_info")
        .help(
            "1, labelled with the TLS engine a terminating listener runs (openssl or jdk) and"
                + " the library under it (OpenSSL's or BoringSSL's version text, or the JDK's)")
        .labelNames("listener", "engine", "library")
        .callback(
            cb -> {
              for (ListenerRuntime l : listeners()) {
                String engine = l.tlsEngine();
                if (engine != null) {
                  cb.call(1, l.name(), engine, l.tlsLibrary());
                }
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("sluice_tls_handshakes_total")
        .help("TLS handshakes finished on a terminating listener: full, or resumed sessions")
        .labelNames("listener", "kind")
        .callback(
            cb -> {
              for (ListenerRuntime l : listeners()) {
                if (l.config().tls() instanceof dev.sluice.proxy.config.ListenerTls.Terminate) {
                  cb.call(l.stats().handshakes(false), l.name(), "full");
                  cb.call(l.stats().handshakes(true), l.name(), "resumed");
                }
              }
            })
        .register(registry);
  }

  private void upstreamMetrics() {
    upstreamGauge(
        "sluice_upstream_up",
        "1 when the upstream takes new connections",
        (u, now) -> u.available(now) ? 1 : 0);
    upstreamGauge(
        "sluice_upstream_weight", "The upstream's configured weight", (u, now) -> u.weight());
    upstreamGauge(
        "sluice_upstream_connections_active",
        "Pairs connected to the upstream now",
        (u, now) -> u.active());
    upstreamGauge(
        "sluice_upstream_connections_idle",
        "Connections to the upstream kept idle for reuse by HTTP listeners",
        (u, now) -> u.idle());
    upstreamCounter(
        "sluice_upstream_reuses_total",
        "HTTP requests sent on an idle connection instead of a new connect",
        UpstreamTarget::reuses);
    upstreamCounter(
        "sluice_upstream_connects_total", "Connects that succeeded", UpstreamTarget::connects);
    upstreamCounter(
        "sluice_upstream_connect_failures_total",
        "Connects that were refused, timed out or failed",
        UpstreamTarget::connectFailures);
    upstreamCounter(
        "sluice_upstream_ejections_total",
        "Times passive health took the upstream out",
        UpstreamTarget::ejections);
    upstreamCounter(
        "sluice_upstream_sent_bytes_total",
        "Bytes read from clients, for the upstream",
        UpstreamTarget::bytesSent);
    upstreamCounter(
        "sluice_upstream_received_bytes_total",
        "Bytes read from the upstream",
        UpstreamTarget::bytesReceived);
    GaugeWithCallback.builder()
        .name("sluice_upstream_state")
        .help(
            "1 for the upstream's health state now (up, down: failed its checks, ejected: passive)")
        .labelNames("cluster", "upstream", "state")
        .callback(
            cb -> {
              long now = System.nanoTime();
              for (Cluster c : clusters()) {
                for (UpstreamTarget u : c.upstreams()) {
                  Health.State state = u.health().state(now);
                  for (Health.State s : Health.State.values()) {
                    cb.call(s == state ? 1 : 0, c.name(), u.name(), s.name().toLowerCase());
                  }
                }
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_cluster_upstreams_available")
        .help("Upstreams of the cluster that take new connections now")
        .labelNames("cluster")
        .callback(
            cb -> {
              long now = System.nanoTime();
              for (Cluster c : clusters()) {
                cb.call(c.upstreams().stream().filter(u -> u.available(now)).count(), c.name());
              }
            })
        .register(registry);
  }

  private void memoryMetrics() {
    GaugeWithCallback.builder()
        .name("sluice_in_flight_bytes")
        .help("Bytes held in pending copies now (the bound below is proxy-wide)")
        .unit(Unit.BYTES)
        .callback(cb -> ifAttached(r -> cb.call(r.budget().used())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_in_flight_limit_bytes")
        .help("buffers.maxBytesInFlight: the most bytes held in pending copies")
        .callback(cb -> ifAttached(r -> cb.call(r.budget().max())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_in_flight_peak_bytes")
        .help("The most bytes held in pending copies since the start")
        .callback(cb -> ifAttached(r -> cb.call(r.budget().peak())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_memory_bytes")
        .help(
            "Memory the networking core holds, by kind: read slabs reserved, slab bytes kept alive"
                + " by chunks handed off, queued writes, pending copies, staging and TLS buffers,"
                + " ciphertext held between reads")
        .labelNames("kind")
        .callback(
            cb -> {
              ProxyRuntime r = runtime;
              if (r == null) {
                return;
              }
              MemoryStats m = r.group().memoryStats();
              cb.call(m.slabBytesReserved(), "slab_reserved");
              cb.call(m.handedOffBytes(), "handed_off");
              cb.call(m.pendingWriteBytes(), "pending_write");
              cb.call(m.pendingCopyBytes(), "pending_copy");
              cb.call(m.stagingBytes(), "staging");
              cb.call(m.tlsBufferBytes(), "tls_buffers");
              cb.call(m.tlsHeldCiphertextBytes(), "tls_held_ciphertext");
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_handed_off_chunks")
        .help("Slab chunks handed to code and not yet released")
        .callback(cb -> ifAttached(r -> cb.call(r.group().memoryStats().handedOffChunks())))
        .register(registry);
    if (NativeMemory.enabled()) {
      BiConsumer<GaugeWithCallback.Callback, Boolean> nmt =
          (cb, committed) -> {
            for (Map.Entry<String, NativeMemory.Category> e : NativeMemory.summary().entrySet()) {
              NativeMemory.Category c = e.getValue();
              cb.call(committed ? c.committedBytes() : c.reservedBytes(), e.getKey());
            }
          };
      GaugeWithCallback.builder()
          .name("sluice_jvm_native_memory_committed_bytes")
          .help("Native Memory Tracking: committed bytes by category (Total included)")
          .labelNames("category")
          .callback(cb -> nmt.accept(cb, true))
          .register(registry);
      GaugeWithCallback.builder()
          .name("sluice_jvm_native_memory_reserved_bytes")
          .help("Native Memory Tracking: reserved bytes by category (Total included)")
          .labelNames("category")
          .callback(cb -> nmt.accept(cb, false))
          .register(registry);
    }
  }

  private void loopMetrics() {
    CounterWithCallback.builder()
        .name("sluice_spliced_bytes_total")
        .help("Bytes raw pairs moved socket to socket inside the kernel (splice: auto, epoll)")
        .labelNames("loop")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(loop.bytesSpliced(), loop.toString());
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("sluice_splice_copied_out_bytes_total")
        .help("Bytes of spliced reads a slow peer could not take, copied out at exact size")
        .labelNames("loop")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(loop.bytesCopiedOutOfPipes(), loop.toString());
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("sluice_splice_pool_empty_total")
        .help(
            "Reads of raw pairs that were to be spliced but found every pipe of the loop's pool"
                + " in use, and were copied instead")
        .labelNames("loop")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(loop.splicePoolEmptyCount(), loop.toString());
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_event_loop_info")
        .help("1 for each event loop, labelled with the transport it runs on (epoll or nio)")
        .labelNames("loop", "transport")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(1, loop.toString(), loop.transport().id());
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_event_loop_longest_turn_seconds")
        .help(
            "The longest a loop went without returning to select in the last "
                + Sampler.WINDOW
                + " s (a stall delays every connection on it)")
        .labelNames("loop")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(Unit.nanosToSeconds(sampler.longestTurnNanos(loop)), loop.toString());
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("sluice_event_loop_pairs")
        .help("Pairs on the loop, at its last answer to the sampler")
        .labelNames("loop")
        .callback(
            cb -> {
              for (EventLoop loop : loops()) {
                cb.call(sampler.pairs(loop), loop.toString());
              }
            })
        .register(registry);
  }

  // ---- helpers: one family per listener or upstream value ----

  private java.util.List<ListenerRuntime> listeners() {
    ProxyRuntime r = runtime;
    return r == null ? java.util.List.of() : r.listeners();
  }

  private java.util.Collection<Cluster> clusters() {
    ProxyRuntime r = runtime;
    return r == null ? java.util.List.of() : r.clusters().values();
  }

  private java.util.List<EventLoop> loops() {
    ProxyRuntime r = runtime;
    return r == null || sampler == null ? java.util.List.of() : r.group().loops();
  }

  private void ifAttached(java.util.function.Consumer<ProxyRuntime> read) {
    ProxyRuntime r = runtime;
    if (r != null) {
      read.accept(r);
    }
  }

  private void listenerGauge(String name, String help, ToLongFunction<ListenerRuntime> value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("listener")
        .callback(cb -> forEachListener(value, (listener, v) -> cb.call(v, listener)))
        .register(registry);
  }

  private void listenerCounter(String name, String help, ToLongFunction<ListenerRuntime> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("listener")
        .callback(cb -> forEachListener(value, (listener, v) -> cb.call(v, listener)))
        .register(registry);
  }

  /** Hands each listener's value, labelled with its name, to a metric's callback. */
  private void forEachListener(
      ToLongFunction<ListenerRuntime> value, java.util.function.ObjDoubleConsumer<String> sink) {
    for (ListenerRuntime l : listeners()) {
      sink.accept(l.name(), value.applyAsLong(l));
    }
  }

  /** A value of an upstream at a moment. */
  private interface UpstreamValue {
    double of(UpstreamTarget upstream, long nowNanos);
  }

  private void upstreamGauge(String name, String help, UpstreamValue value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("cluster", "upstream")
        .callback(
            cb -> {
              long now = System.nanoTime();
              for (Cluster c : clusters()) {
                for (UpstreamTarget u : c.upstreams()) {
                  cb.call(value.of(u, now), c.name(), u.name());
                }
              }
            })
        .register(registry);
  }

  private void upstreamCounter(String name, String help, ToLongFunction<UpstreamTarget> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("cluster", "upstream")
        .callback(
            cb -> {
              for (Cluster c : clusters()) {
                for (UpstreamTarget u : c.upstreams()) {
                  cb.call(value.applyAsLong(u), c.name(), u.name());
                }
              }
            })
        .register(registry);
  }
}
