package dev.sluice.proxy.config;

import java.util.List;

/**
 * A named group of upstreams.
 *
 * @param name a label for routes, metrics and logs
 * @param upstreams where connections go, in order
 */
public record ClusterConfig(String name, List<UpstreamConfig> upstreams) {
  public ClusterConfig {
    upstreams = List.copyOf(upstreams);
  }

  /** One upstream: its address and its share of new connections. */
  public record UpstreamConfig(Endpoint address, int weight) {}
}
