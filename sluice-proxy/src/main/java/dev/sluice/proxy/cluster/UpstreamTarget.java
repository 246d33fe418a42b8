package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** One upstream of a cluster: where it is, its weight, and what its connections have done. */
public final class UpstreamTarget implements Pair.Upstream {
  private final String cluster;
  private final Endpoint endpoint;
  private final SocketAddress address;
  private final int weight;
  private final AtomicLong active = new AtomicLong();
  private final LongAdder connects = new LongAdder();
  private final LongAdder connectFailures = new LongAdder();

  UpstreamTarget(String cluster, Endpoint endpoint, int weight) {
    this.cluster = cluster;
    this.endpoint = endpoint;
    this.address = endpoint.socketAddress();
    this.weight = weight;
  }

  @Override
  public SocketAddress address() {
    return address;
  }

  @Override
  public String name() {
    return endpoint.toString();
  }

  /** The cluster it belongs to. */
  public String cluster() {
    return cluster;
  }

  /** Its share of new connections. */
  public int weight() {
    return weight;
  }

  /** Pairs connected to it now. */
  public long active() {
    return active.get();
  }

  /** Connects that succeeded. */
  public long connects() {
    return connects.sum();
  }

  /** Connects that failed. */
  public long connectFailures() {
    return connectFailures.sum();
  }

  @Override
  public void connected() {
    connects.increment();
    active.incrementAndGet();
  }

  @Override
  public void connectFailed(CloseCause cause) {
    connectFailures.increment();
  }

  @Override
  public void released() {
    active.decrementAndGet();
  }
}
