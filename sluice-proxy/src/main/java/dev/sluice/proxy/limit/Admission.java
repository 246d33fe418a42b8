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
  private final ConcurrentHashMap<InetAddress, AtomicInteger> perSource = new ConcurrentHashMap<>();

  public Admission(Limits limits) {
    this.limits = limits;
    this.bucket =
        limits.connectionsPerSecond() > 0
            ? new TokenBucket(limits.connectionsPerSecond(), limits.burst(), System.nanoTime())
            : null;
  }

  public Limits limits() {
    return limits;
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
