package dev.sluice.proxy.limit;

import dev.sluice.proxy.config.Cidr;
import dev.sluice.proxy.config.Limits;
import dev.sluice.proxy.forward.CloseCause;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener's admission rules at run time: its rate of new connections (a token bucket), the
 * networks it allows and denies, and the connections open per client address. Thread-safe: the
 * accept path and every loop use it.
 */
public final class Admission {
  private final Limits limits;
  private final TokenBucket bucket;
  private final ConcurrentHashMap<InetAddress, AtomicInteger> perSource;

  public Admission(Limits limits) {
    this(
        limits,
        limits.connectionsPerSecond() > 0
            ? new TokenBucket(limits.connectionsPerSecond(), limits.burst(), System.nanoTime())
            : null,
        new ConcurrentHashMap<>());
  }

  private Admission(
      Limits limits, TokenBucket bucket, ConcurrentHashMap<InetAddress, AtomicInteger> perSource) {
    this.limits = limits;
    this.bucket = bucket;
    this.perSource = perSource;
  }

  public Limits limits() {
    return limits;
  }

  /**
   * The admission for {@code next}, limits a reload gave the same listener: this one when they are
   * unchanged, else one that goes on with this one's state. The counts per address are shared, so
   * that the clients open now still count and their ends release the counts that judge new ones (a
   * per-address limit newly set counts the connections opened from then on). The rate keeps the
   * tokens saved up (at most the new burst; see {@link TokenBucket#withRate}), so that a changed
   * rate grants no fresh burst; a rate newly set starts with its burst, as at start.
   */
  public Admission reconfigured(Limits next) {
    if (next.equals(limits)) {
      return this;
    }
    TokenBucket nextBucket;
    if (next.connectionsPerSecond() <= 0) {
      nextBucket = null;
    } else if (bucket == null) {
      nextBucket = new TokenBucket(next.connectionsPerSecond(), next.burst(), System.nanoTime());
    } else if (next.connectionsPerSecond() == limits.connectionsPerSecond()
        && next.burst() == limits.burst()) {
      nextBucket = bucket;
    } else {
      nextBucket = bucket.withRate(next.connectionsPerSecond(), next.burst(), System.nanoTime());
    }
    return new Admission(next, nextBucket, perSource);
  }

  /** The refusal for a new connection by rate (before its address is known), or null. */
  public CloseCause byRate() {
    return bucket != null && !bucket.tryTake(System.nanoTime()) ? CloseCause.RATE_LIMITED : null;
  }

  /**
   * The refusal for a client at {@code remote} by network or per-address count, or null; when null,
   * the client is counted against its address until {@link #release}.
   */
  public CloseCause byAddress(SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
      return null; // a Unix-socket client has no address to judge
    }
    InetAddress address = inet.getAddress();
    if (!limits.allow().isEmpty() && limits.allow().stream().noneMatch(c -> c.contains(address))) {
      return CloseCause.DENIED;
    }
    for (Cidr deny : limits.deny()) {
      if (deny.contains(address)) {
        return CloseCause.DENIED;
      }
    }
    if (limits.perSourceAddress() > 0) {
      AtomicInteger open = perSource.computeIfAbsent(address, a -> new AtomicInteger());
      if (open.incrementAndGet() > limits.perSourceAddress()) {
        release(remote);
        return CloseCause.SOURCE_LIMIT;
      }
    }
    return null;
  }

  /** A client counted by {@link #byAddress} is gone. */
  public void release(SocketAddress remote) {
    if (limits.perSourceAddress() > 0
        && remote instanceof InetSocketAddress inet
        && inet.getAddress() != null) {
      perSource.computeIfPresent(
          inet.getAddress(), (a, open) -> open.decrementAndGet() <= 0 ? null : open);
    }
  }

  /** Addresses with connections counted now (for tests and the status page). */
  public int trackedAddresses() {
    return perSource.size();
  }
}
