package dev.sluice.proxy.cluster;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.forward.Side;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.tls.TlsClient;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One upstream of a cluster at run time: one address (a host name resolves to one target per
 * address), its weight, its health, and what its connections have done. A reload that rebuilds its
 * cluster builds a new target for the same address that shares this one's counters (so open pairs
 * still count where new ones are balanced) and, when connections to it are made the same way, its
 * health.
 */
public final class UpstreamTarget implements Pair.Upstream {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(UpstreamTarget.class);

  private final Cluster cluster;
  private final String name;
  private final SocketAddress address;
  private final String host;
  private final int weight;
  private final Health health;
  private final Counters counters;
  private volatile boolean draining;
  private volatile boolean keptLogged;

  /** Smooth weighted round-robin's running weight; guarded by the cluster's balancer. */
  int current;

  /** What an address's connections have done: one set for every target a reload builds for it. */
  static final class Counters {
    private final AtomicLong active = new AtomicLong();
    private final AtomicLong idle = new AtomicLong();
    private final LongAdder reuses = new LongAdder();
    private final LongAdder connects = new LongAdder();
    private final LongAdder connectFailures = new LongAdder();
    private final LongAdder ejections = new LongAdder();
    private final LongAdder bytesToUpstream = new LongAdder();
    private final LongAdder bytesFromUpstream = new LongAdder();
  }

  UpstreamTarget(
      Cluster cluster,
      String name,
      SocketAddress address,
      String host,
      int weight,
      Health health,
      Counters counters) {
    this.cluster = cluster;
    this.name = name;
    this.address = address;
    this.host = host;
    this.weight = weight;
    this.health = health;
    this.counters = counters;
  }

  /** Its counters, for the target a reload builds for the same address. */
  Counters counters() {
    return counters;
  }

  @Override
  public SocketAddress address() {
    return address;
  }

  @Override
  public String name() {
    return name;
  }

  /** The cluster it belongs to. */
  public Cluster cluster() {
    return cluster;
  }

  /** Its configured share of new connections. */
  public int weight() {
    return weight;
  }

  /**
   * Its share now: the configured weight, ramped up over the cluster's slow start after it came
   * back (never below a tenth, so a returning upstream is tried at all).
   */
  public double effectiveWeight(long nowNanos) {
    long window = cluster.config().slowStart().toNanos();
    if (window <= 0) {
      return weight;
    }
    double ramp = (double) (nowNanos - health.availableSinceNanos()) / window;
    return weight * Math.max(0.1, Math.min(1.0, ramp));
  }

  /** Its health. */
  public Health health() {
    return health;
  }

  /** Whether it may take a new connection now. */
  public boolean available(long nowNanos) {
    return !draining && health.available(nowNanos);
  }

  /** Removed by a DNS change: no new connections; open pairs go on. */
  public boolean draining() {
    return draining;
  }

  void drain() {
    draining = true;
  }

  /** Pairs connected to it now. */
  public long active() {
    return counters.active.get();
  }

  /** Its connections idle in the HTTP listeners' pools now. */
  public long idle() {
    return counters.idle.get();
  }

  /** Requests sent on an idle connection taken from a pool instead of a new connect. */
  public long reuses() {
    return counters.reuses.sum();
  }

  public long connects() {
    return counters.connects.sum();
  }

  public long connectFailures() {
    return counters.connectFailures.sum();
  }

  /** Times passive health took it out. */
  public long ejections() {
    return counters.ejections.sum();
  }

  /** Bytes its pairs' clients sent to it (read from the clients). */
  public long bytesSent() {
    return counters.bytesToUpstream.sum();
  }

  /** Bytes it sent back (read from it). */
  public long bytesReceived() {
    return counters.bytesFromUpstream.sum();
  }

  @Override
  public void bytesRead(Side side, int bytes) {
    (side == Side.CLIENT ? counters.bytesToUpstream : counters.bytesFromUpstream).add(bytes);
  }

  @Override
  public int maxTries() {
    return cluster.config().retries().tries();
  }

  @Override
  public long triesWithinNanos() {
    return cluster.config().retries().within().toNanos();
  }

  @Override
  public TlsClient tls() {
    return cluster.tlsClient();
  }

  @Override
  public String tlsServerName() {
    return cluster.config().tls() != null && cluster.config().tls().serverName() != null
        ? cluster.config().tls().serverName()
        : host;
  }

  @Override
  public ProxyHeader.Version proxyProtocol() {
    return cluster.config().proxyProtocol();
  }

  @Override
  public dev.sluice.proxy.proxyprotocol.FingerprintTlvs fingerprintTlvs() {
    return cluster.config().fingerprintTlvs();
  }

  @Override
  public void connected() {
    counters.connects.increment();
    counters.active.incrementAndGet();
    health.connectSucceeded();
    keptLogged = false;
  }

  @Override
  public void connectFailed(CloseCause cause, String detail) {
    counters.connectFailures.increment();
    failed(Health.Failure.CONNECT, cause.label() + (detail == null ? "" : ": " + detail));
  }

  @Override
  public void released(CloseCause cause, boolean quiet) {
    counters.active.decrementAndGet();
    // Only a reset before any byte moved is the upstream's own failure: one after the client's
    // request may be that request's doing, and any client could eject a healthy upstream with it.
    if (cause == CloseCause.UPSTREAM_RESET && quiet) {
      failed(Health.Failure.RESET_BEFORE_ANY_BYTE, "reset a connection before any byte");
    } else {
      health.connectionServed();
    }
  }

  @Override
  public void parked() {
    counters.idle.incrementAndGet();
    counters.active.decrementAndGet(); // an idle connection is no load for the balancer
    health.connectionServed();
  }

  @Override
  public void unparked(boolean reused) {
    counters.idle.decrementAndGet();
    if (reused) {
      counters.reuses.increment();
      counters.active.incrementAndGet();
    }
  }

  private void failed(Health.Failure kind, String problem) {
    long now = System.nanoTime();
    switch (cluster.failed(this, kind, now, problem)) {
      case EJECTED -> {
        counters.ejections.increment();
        keptLogged = false;
        LOG.warn(
            "upstream {} of cluster {} ejected for {} ms after {} failures in a row ({})",
            name,
            cluster.name(),
            (health.ejectedUntilNanos() - now) / 1_000_000,
            cluster.config().passive().failures(),
            problem);
      }
      case KEPT -> {
        if (!keptLogged) {
          keptLogged = true;
          LOG.warn(
              "upstream {} of cluster {} keeps failing ({}) but stays in: ejecting it would leave"
                  + " fewer than {} of the cluster's {} upstreams available",
              name,
              cluster.name(),
              problem,
              cluster.config().passive().minInService(cluster.upstreams().size()),
              cluster.upstreams().size());
        }
      }
      case COUNTED -> {}
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
