package dev.sluice.proxy.admin;

import dev.sluice.memory.MemoryStats;
import java.util.List;
import java.util.Map;

/**
 * What the proxy is doing, read at one moment: the model behind the status page, {@code
 * /metrics.json} and {@code sluice status}. Counters are totals since the start; rates are per
 * second over the sampler's window.
 */
public record Status(
    String version,
    long startedMillis,
    long nowMillis,
    String config,
    Reloads reloads,
    Readiness readiness,
    List<ListenerStatus> listeners,
    List<ClusterStatus> clusters,
    Memory memory,
    List<LoopStatus> loops,
    String transport) {

  /** Configuration reloads: applied, rejected, and the last rejection's reason. */
  public record Reloads(long ok, long failed, long lastMillis, String lastError) {}

  /** Whether the proxy should get traffic, and if not, why. */
  public record Readiness(boolean ready, List<String> reasons) {}

  public record ListenerStatus(
      String name,
      String address,
      String mode,
      boolean bound,
      long active,
      int maxConnections,
      long accepted,
      double acceptRate,
      double maxAcceptRate,
      long bytesFromClients,
      long bytesFromUpstreams,
      double bytesFromClientsRate,
      double bytesFromUpstreamsRate,
      long acceptBackoffs,
      Map<String, Long> closed,
      String tlsEngine) {

    /** Pairs that ended for a reason other than an orderly close. */
    public long errors() {
      return closed.entrySet().stream()
          .filter(e -> !e.getKey().equals("client_eof") && !e.getKey().equals("upstream_eof"))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }
  }

  public record ClusterStatus(
      String name, String balance, int available, List<UpstreamStatus> upstreams) {}

  public record UpstreamStatus(
      String name,
      String address,
      String state,
      boolean draining,
      int weight,
      long active,
      long connects,
      long connectFailures,
      long ejections,
      long bytesSent,
      long bytesReceived,
      String lastProblem) {}

  /**
   * Memory: the bound on bytes in flight, what the core holds (slabs, chunks handed off, pending
   * writes, TLS), and the JVM's own view.
   */
  public record Memory(
      long inFlight,
      long inFlightLimit,
      long inFlightPeak,
      MemoryStats core,
      long heapUsed,
      long heapMax,
      long directUsed,
      long residentBytes) {}

  /** One event loop: the pairs on it and its longest turn in the window. */
  public record LoopStatus(String name, int pairs, long longestTurnNanos, MemoryStats memory) {}
}
