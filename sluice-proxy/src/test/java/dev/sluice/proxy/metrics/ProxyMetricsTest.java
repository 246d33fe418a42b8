package dev.sluice.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

class ProxyMetricsTest {
  @Test
  void registersTheJvmMetricsOnTheFirstScrapeAndOnlyOnce() {
    ProxyMetrics metrics = new ProxyMetrics();
    assertThat(metrics.jvmMetricsRegistered()).isFalse();

    var first = metrics.registry().scrape();
    var second = metrics.registry().scrape();

    assertThat(metrics.jvmMetricsRegistered()).isTrue();
    assertThat(first.stream().map(s -> s.getMetadata().getName()))
        .contains("jvm_memory_used_bytes");
    assertThat(second.stream().map(MetricSnapshot::getMetadata).map(m -> m.getName()))
        .containsOnlyOnce("jvm_memory_used_bytes", "sluice_build_info");
  }
}
