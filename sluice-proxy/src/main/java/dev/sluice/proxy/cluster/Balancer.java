package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.ClusterConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks the upstream for a new connection from those that may take one: a function of the
 * candidates, their weights (ramped by slow start) and their open connections, unit-tested without
 * sockets. Safe to call from every loop at once.
 */
public sealed interface Balancer {

  /**
   * One of {@code candidates} (not empty), for a client whose address hashes to {@code clientKey}.
   */
  UpstreamTarget pick(List<UpstreamTarget> candidates, long clientKey, long nowNanos);

  /** The balancer {@code balance} names, over a cluster's whole upstream list. */
  static Balancer of(ClusterConfig.Balance balance, List<UpstreamTarget> all) {
    return switch (balance) {
      case ROUNDROBIN -> new RoundRobin();
      case LEASTCONN -> new LeastConnections();
      case P2C -> new PowerOfTwoChoices();
      case HASH -> new ConsistentHash(all);
    };
  }

  /**
   * Smooth weighted round-robin: each pick adds every candidate's weight to its running total and
   * takes the largest, which then gives back the sum; over any run of picks each gets its share,
   * interleaved (weights 5, 1, 1 give a a b a c a a).
   */
  final class RoundRobin implements Balancer {
    @Override
    public synchronized UpstreamTarget pick(
        List<UpstreamTarget> candidates, long clientKey, long nowNanos) {
      UpstreamTarget best = null;
      int total = 0;
      for (UpstreamTarget u : candidates) {
        int w = (int) Math.max(1, Math.round(u.effectiveWeight(nowNanos) * 100));
        u.current += w;
        total += w;
        if (best == null || u.current > best.current) {
          best = u;
        }
      }
      best.current -= total;
      return best;
    }
  }

  /**
   * The fewest open connections for its weight; ties go to a random one of them, so that equal
   * upstreams share the connections that arrive together.
   */
  final class LeastConnections implements Balancer {
    @Override
    public UpstreamTarget pick(List<UpstreamTarget> candidates, long clientKey, long nowNanos) {
      UpstreamTarget best = null;
      double bestLoad = Double.MAX_VALUE;
      int ties = 0;
      ThreadLocalRandom random = ThreadLocalRandom.current();
      for (UpstreamTarget u : candidates) {
        double load = (u.active() + 1) / u.effectiveWeight(nowNanos);
        if (load < bestLoad) {
          best = u;
          bestLoad = load;
          ties = 1;
        } else if (load == bestLoad && random.nextInt(++ties) == 0) {
          best = u; // reservoir sampling over the ties
        }
      }
      return best;
    }
  }

  /**
   * Two candidates drawn at random by weight; the one with fewer open connections per weight wins.
   */
  final class PowerOfTwoChoices implements Balancer {
    @Override
    public UpstreamTarget pick(List<UpstreamTarget> candidates, long clientKey, long nowNanos) {
      if (candidates.size() == 1) {
        return candidates.getFirst();
      }
      double[] weights = new double[candidates.size()];
      double total = 0;
      for (int i = 0; i < weights.length; i++) {
        weights[i] = candidates.get(i).effectiveWeight(nowNanos);
        total += weights[i];
      }
      ThreadLocalRandom random = ThreadLocalRandom.current();
      int a = draw(weights, total, random);
      int b = draw(weights, total, random);
      while (b == a) {
        b = draw(weights, total, random);
      }
      UpstreamTarget x = candidates.get(a);
      UpstreamTarget y = candidates.get(b);
      return (x.active() + 1) / weights[a] <= (y.active() + 1) / weights[b] ? x : y;
    }

    private static int draw(double[] weights, double total, ThreadLocalRandom random) {
      double at = random.nextDouble(total);
      for (int i = 0; i < weights.length; i++) {
        at -= weights[i];
        if (at < 0) {
          return i;
        }
      }
      return weights.length - 1;
    }
  }

  /**
   * Consistent hashing of the client's address on a ring of 160 points per unit of weight: a client
   * keeps its upstream while that upstream is available, and adding an upstream to N moves about
   * 1/(N+1) of the clients (only those whose points it takes).
   */
  final class ConsistentHash implements Balancer {
    private static final int POINTS_PER_WEIGHT = 160;
    private final long[] points;
    private final UpstreamTarget[] owners;

    ConsistentHash(List<UpstreamTarget> all) {
      List<long[]> ring = new ArrayList<>();
      for (int u = 0; u < all.size(); u++) {
        UpstreamTarget target = all.get(u);
        for (int i = 0; i < target.weight() * POINTS_PER_WEIGHT; i++) {
          ring.add(
              new long[] {mix((target.name() + "#" + i).hashCode() * 0x9e3779b97f4a7c15L + i), u});
        }
      }
      ring.sort((x, y) -> Long.compare(x[0], y[0]));
      points = new long[ring.size()];
      owners = new UpstreamTarget[ring.size()];
      for (int i = 0; i < ring.size(); i++) {
        points[i] = ring.get(i)[0];
        owners[i] = all.get((int) ring.get(i)[1]);
      }
    }

    @Override
    public UpstreamTarget pick(List<UpstreamTarget> candidates, long clientKey, long nowNanos) {
      long key = mix(clientKey);
      int at = Arrays.binarySearch(points, key);
      int start = at >= 0 ? at : -at - 1;
      for (int i = 0; i < points.length; i++) {
        UpstreamTarget owner = owners[(start + i) % points.length];
        if (candidates.contains(owner)) {
          return owner; // the next point clockwise whose upstream may take it
        }
      }
      return candidates.getFirst();
    }

    private static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      return z ^ (z >>> 31);
    }
  }
}
