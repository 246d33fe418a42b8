package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.ClusterConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * A named group of upstreams, picked in smooth weighted round-robin: over any run of picks each
 * upstream gets its weight's share, interleaved rather than in bursts (weights 5, 1, 1 give a a b a
 * c a a, not a a a a a b c).
 */
public final class Cluster {
  private final ClusterConfig config;
  private final String name;
  private final List<UpstreamTarget> upstreams;
  private final int totalWeight;
  private final int[] current;

  public Cluster(ClusterConfig config) {
    this.config = config;
    this.name = config.name();
    List<UpstreamTarget> list = new ArrayList<>();
    int total = 0;
    for (ClusterConfig.UpstreamConfig u : config.upstreams()) {
      list.add(new UpstreamTarget(name, u.address(), u.weight()));
      total += u.weight();
    }
    this.upstreams = List.copyOf(list);
    this.totalWeight = total;
    this.current = new int[list.size()];
  }

  public String name() {
    return name;
  }

  /** What it was built from. */
  public ClusterConfig config() {
    return config;
  }

  /** The upstreams, in configuration order. */
  public List<UpstreamTarget> upstreams() {
    return upstreams;
  }

  /** The next upstream for a new pair. */
  public synchronized UpstreamTarget next() {
    int best = 0;
    for (int i = 0; i < current.length; i++) {
      current[i] += upstreams.get(i).weight();
      if (current[i] > current[best]) {
        best = i;
      }
    }
    current[best] -= totalWeight;
    return upstreams.get(best);
  }
}
