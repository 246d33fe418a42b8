package dev.sluice.bench.workload;

import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.workload.bigwrite.BigWriteWorkload;
import dev.sluice.bench.workload.bulk.BulkWorkload;
import dev.sluice.bench.workload.echo.PingPongWorkload;
import dev.sluice.bench.workload.echo.SizeSweepWorkload;
import dev.sluice.bench.workload.proxy.BurstIdleWorkload;
import dev.sluice.bench.workload.proxy.ConnRateWorkload;
import dev.sluice.bench.workload.proxy.FailoverWorkload;
import dev.sluice.bench.workload.proxy.HandshakeWorkload;
import dev.sluice.bench.workload.proxy.HttpIdleWorkload;
import dev.sluice.bench.workload.proxy.HttpWorkload;
import dev.sluice.bench.workload.proxy.ProxyBulkWorkload;
import dev.sluice.bench.workload.proxy.ProxyIdleWorkload;
import dev.sluice.bench.workload.proxy.ProxyPingPongWorkload;
import dev.sluice.bench.workload.proxy.ProxyThroughputWorkload;
import dev.sluice.bench.workload.proxy.StartupWorkload;
import dev.sluice.bench.workload.retention.RetentionWorkload;
import dev.sluice.bench.workload.tlsidle.TlsIdleWorkload;
import dev.sluice.bench.workload.tlsretention.TlsRetentionWorkload;
import dev.sluice.bench.workload.tlsthroughput.TlsThroughputWorkload;
import java.util.List;
import java.util.stream.Collectors;

/** Every workload, by name. A new workload is one class plus one line here. */
public final class Workloads {
  private static final List<Workload> ALL =
      List.of(
          new RetentionWorkload(),
          new BigWriteWorkload(),
          new PingPongWorkload(),
          new BulkWorkload(),
          new SizeSweepWorkload(),
          new TlsRetentionWorkload(),
          new TlsThroughputWorkload(),
          new TlsIdleWorkload(),
          new ProxyIdleWorkload(),
          new BurstIdleWorkload(),
          new ProxyThroughputWorkload(),
          new ProxyBulkWorkload(),
          new ProxyPingPongWorkload(),
          new ConnRateWorkload(),
          new HandshakeWorkload(),
          new FailoverWorkload(),
          new HttpWorkload(),
          new HttpIdleWorkload(),
          new StartupWorkload());

  private Workloads() {}

  /** All workloads, in the order the usage text lists them. */
  public static List<Workload> all() {
    return ALL;
  }

  /**
   * The workload called {@code name}.
   *
   * @throws IllegalArgumentException naming the known workloads
   */
  public static Workload get(String name) {
    return ALL.stream()
        .filter(w -> w.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown workload '"
                        + name
                        + "'; known: "
                        + ALL.stream().map(Workload::name).collect(Collectors.joining(", "))));
  }
}
