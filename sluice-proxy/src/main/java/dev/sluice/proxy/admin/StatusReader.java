package dev.sluice.proxy.admin;

import dev.sluice.net.EventLoop;
import dev.sluice.proxy.Version;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.metrics.Sampler;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.ProxyRuntime;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Reads a {@link Status} from the running proxy (any thread; nothing here blocks a loop). */
public final class StatusReader {
  /** A loop that has not run the sampler's task for this long is not live. */
  public static final long LIVE_WITHIN_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

  private final ProxyRuntime runtime;
  private final Sampler sampler;
  private final Supplier<Status.Reloads> reloads;
  private final long startedMillis;

  public StatusReader(
      ProxyRuntime runtime, Sampler sampler, Supplier<Status.Reloads> reloads, long startedMillis) {
    this.runtime = runtime;
    this.sampler = sampler;
    this.reloads = reloads;
    this.startedMillis = startedMillis;
  }

  /** The loops that have not run the sampler's task within {@link #LIVE_WITHIN_NANOS}. */
  public List<String> stuckLoops() {
    List<String> stuck = new ArrayList<>();
    for (EventLoop loop : runtime.group().loops()) {
      long since = sampler.sinceAnswerNanos(loop);
      if (since > LIVE_WITHIN_NANOS) {
        stuck.add("loop " + loop + " has not answered for " + Units.formatNanos(since));
      }
    }
    return stuck;
  }

  /** The runtime this reads. */
  public ProxyRuntime runtime() {
    return runtime;
  }

  /** The sampler this reads. */
  public Sampler sampler() {
    return sampler;
  }

  /** Everything, now. */
  public Status read() {
    long now = System.nanoTime();
    List<Status.ListenerStatus> listeners = new ArrayList<>();
    for (ListenerRuntime l : runtime.listeners()) {
      listeners.add(listener(l));
    }
    List<Status.ClusterStatus> clusters = new ArrayList<>();
    for (Cluster c : runtime.clusters().values()) {
      List<Status.UpstreamStatus> upstreams = new ArrayList<>();
      int available = 0;
      for (UpstreamTarget u : c.upstreams()) {
        if (u.available(now)) {
          available++;
        }
        upstreams.add(
            new Status.UpstreamStatus(
                u.name(),
                Endpoint.format(u.address()),
                u.health().state(now).name().toLowerCase(),
                u.draining(),
                u.weight(),
                u.active(),
                u.connects(),
                u.connectFailures(),
                u.ejections(),
                u.bytesSent(),
                u.bytesReceived(),
                u.health().lastProblem()));
      }
      for (Cluster.Unresolved u : c.unresolved()) {
        upstreams.add(
            new Status.UpstreamStatus(
                u.address(), u.address(), "unresolved", false, 0, 0, 0, 0, 0, 0, 0, u.problem()));
      }
      clusters.add(
          new Status.ClusterStatus(
              c.name(), c.config().balance().name().toLowerCase(), available, upstreams));
    }
    List<Status.LoopStatus> loops = new ArrayList<>();
    for (EventLoop loop : runtime.group().loops()) {
      loops.add(
          new Status.LoopStatus(
              loop.toString(),
              sampler.pairs(loop),
              sampler.longestTurnNanos(loop),
              loop.memoryStats()));
    }
    return new Status(
        Version.NUMBER,
        startedMillis,
        System.currentTimeMillis(),
        runtime.config().source(),
        reloads.get(),
        readiness(),
        listeners,
        clusters,
        memory(),
        loops,
        runtime.group().transport().id());
  }

  /**
   * Ready when every listener is bound and every cluster has an upstream that takes connections,
   * and no shutdown began; else the reasons.
   */
  public Status.Readiness readiness() {
    List<String> reasons = new ArrayList<>();
    if (runtime.isStopping()) {
      reasons.add("shutting down");
    }
    for (ListenerRuntime l : runtime.listeners()) {
      if (!l.isBound()) {
        reasons.add("listener " + l.name() + " is not bound");
      }
    }
    long now = System.nanoTime();
    for (Cluster c : runtime.clusters().values()) {
      if (c.upstreams().stream().noneMatch(u -> u.available(now))) {
        reasons.add(
            "cluster "
                + c.name()
                + " has no upstream that takes connections"
                + (c.unresolved().isEmpty()
                    ? ""
                    : " (" + c.unresolved().getFirst().address() + " does not resolve)"));
      }
    }
    return new Status.Readiness(reasons.isEmpty(), reasons);
  }

  private Status.ListenerStatus listener(ListenerRuntime l) {
    ListenerConfig config = l.config();
    Sampler.Rates rates = sampler.rates(l.name());
    Map<String, Long> closed = new LinkedHashMap<>();
    for (Map.Entry<CloseCause, Long> e : l.stats().closedByCause().entrySet()) {
      closed.put(e.getKey().label(), e.getValue());
    }
    return new Status.ListenerStatus(
        l.name(),
        Endpoint.format(l.boundAddress()),
        switch (config.tls()) {
          case null -> "tcp";
          case ListenerTls.Terminate t -> "tls";
          case ListenerTls.Passthrough p -> "passthrough";
        },
        l.isBound(),
        l.stats().openCount(),
        config.maxConnections(),
        l.stats().acceptedCount(),
        rates.accepts(),
        rates.maxAccepts(),
        l.stats().bytesFromClients(),
        l.stats().bytesFromUpstreams(),
        rates.bytesFromClients(),
        rates.bytesFromUpstreams(),
        l.acceptBackoffs(),
        closed,
        l.tlsEngine());
  }

  private Status.Memory memory() {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    long direct = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
      }
    }
    return new Status.Memory(
        runtime.budget().used(),
        runtime.budget().max(),
        runtime.budget().peak(),
        runtime.group().memoryStats(),
        heap.getUsed(),
        heap.getMax(),
        direct,
        residentBytes());
  }

  /** The process's resident set, from /proc (0 where there is none). */
  static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: no figure
    }
    return 0;
  }
}
