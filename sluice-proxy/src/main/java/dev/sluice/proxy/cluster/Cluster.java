package dev.sluice.proxy.cluster;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.tls.TlsClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named group of upstreams at run time: the targets its addresses resolve to, the balancer that
 * picks among those that may take a connection, and its upstream TLS client. A host name is
 * resolved again on the configured interval; a changed answer adds targets and drains the ones that
 * are gone (their open pairs go on). A cluster a reload builds anew carries over its predecessor's
 * state for the same addresses: open connections, counters and, when connections are made the same
 * way (TLS and PROXY protocol settings unchanged), health and ejection.
 */
public final class Cluster {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Cluster.class);

  private final ClusterConfig config;
  private final Resolver resolver;
  private final TlsClient tlsClient;
  private final Object ejections = new Object();
  private volatile List<UpstreamTarget> upstreams = List.of();
  private volatile List<Unresolved> unresolved = List.of();
  private volatile Balancer balancer;

  /** The predecessor's targets by name, for the first resolution only; guarded by this. */
  private Map<String, UpstreamTarget> inherited;

  private final boolean inheritsHealth;

  /** The outcome of choosing an upstream. */
  public sealed interface Choice {}

  /** An upstream to connect to. */
  public record Chosen(UpstreamTarget upstream) implements Choice {}

  /** None may take a connection now (all down, ejected or already tried). */
  public record NoneAvailable(String why) implements Choice {}

  /** A configured host name whose last lookup gave no address. */
  public record Unresolved(String address, String problem) {}

  public Cluster(ClusterConfig config, Resolver resolver, TlsClient tlsClient) {
    this(config, resolver, tlsClient, null);
  }

  /**
   * A cluster that takes over from {@code previous} (the running one of the same name, or null):
   * its targets for the same addresses share their counters and, when connections are made the same
   * way, their health, which takes this configuration's settings on {@link #adoptHealth}.
   */
  public Cluster(ClusterConfig config, Resolver resolver, TlsClient tlsClient, Cluster previous) {
    this.config = config;
    this.resolver = resolver;
    this.tlsClient = tlsClient;
    this.inheritsHealth =
        previous != null
            && java.util.Objects.equals(previous.config.tls(), config.tls())
            && previous.config.proxyProtocol() == config.proxyProtocol();
    synchronized (this) {
      inherited = new java.util.HashMap<>();
      if (previous != null) {
        for (UpstreamTarget u : previous.upstreams) {
          inherited.put(u.name(), u);
        }
      }
      refresh();
      inherited = null;
    }
  }

  /** A cluster of literal addresses, no TLS: for tests and tools. */
  public Cluster(ClusterConfig config) {
    this(config, Resolver.SYSTEM, null);
  }

  public String name() {
    return config.name();
  }

  /** What it was built from. */
  public ClusterConfig config() {
    return config;
  }

  /** The TLS client for its upstreams, or null when it speaks plain TCP to them. */
  public TlsClient tlsClient() {
    return tlsClient;
  }

  /** The targets that take new connections (draining ones are gone from this list). */
  public List<UpstreamTarget> upstreams() {
    return upstreams;
  }

  /** The configured host names whose last lookup gave no address (resolved again with back-off). */
  public List<Unresolved> unresolved() {
    return unresolved;
  }

  /**
   * This cluster now serves (a reload committed it): the health it shares with its predecessor's
   * targets takes this configuration's check and passive settings.
   */
  public void adoptHealth() {
    long now = System.nanoTime();
    for (UpstreamTarget u : upstreams) {
      u.health().reconfigure(config.healthCheck(), config.passive(), now);
    }
  }

  /** Whether any configured address is a host name (to be resolved again). */
  public boolean hasHostNames() {
    return config.upstreams().stream()
        .anyMatch(u -> u.address() instanceof Endpoint.Tcp tcp && !isLiteral(tcp.host()));
  }

  /**
   * Resolves the host names again and applies the answer: new addresses become targets, vanished
   * ones drain, unchanged ones keep their health and counters. Blocking (DNS): never on a loop.
   *
   * @return whether the set of targets changed
   */
  public synchronized boolean refresh() {
    Map<String, UpstreamTarget> running = new LinkedHashMap<>();
    for (UpstreamTarget u : upstreams) {
      running.put(u.name(), u);
    }
    List<UpstreamTarget> next = new ArrayList<>();
    List<Unresolved> failed = new ArrayList<>();
    java.util.Set<String> taken = new java.util.HashSet<>();
    long now = System.nanoTime();
    for (ClusterConfig.UpstreamConfig u : config.upstreams()) {
      List<Resolved> resolved = resolve(u.address(), failed);
      for (Resolved r : resolved) {
        if (!taken.add(r.name())) {
          continue; // two names for one address: one upstream (and one metrics series)
        }
        UpstreamTarget target = running.remove(r.name());
        if (target == null) {
          target = newTarget(r, u.weight(), now);
        }
        next.add(target);
      }
    }
    unresolved = List.copyOf(failed);
    if (next.isEmpty() && !upstreams.isEmpty()) {
      LOG.warn("cluster {}: no address resolved; keeping the previous ones", name());
      return false;
    }
    boolean changed = !running.isEmpty() || next.size() != upstreams.size();
    for (UpstreamTarget gone : running.values()) {
      gone.drain();
      LOG.info("cluster {}: {} is gone from DNS; draining it", name(), gone.name());
    }
    if (changed || balancer == null) {
      upstreams = List.copyOf(next);
      balancer = Balancer.of(config.balance(), upstreams);
      if (changed) {
        LOG.info("cluster {}: upstreams {}", name(), upstreams);
      }
    }
    return changed;
  }

  private UpstreamTarget newTarget(Resolved r, int weight, long now) {
    UpstreamTarget predecessor = inherited == null ? null : inherited.remove(r.name());
    Health health =
        predecessor != null && inheritsHealth
            ? predecessor.health()
            : new Health(config.healthCheck(), config.passive(), now);
    return new UpstreamTarget(
        this,
        r.name(),
        r.address(),
        r.host(),
        weight,
        health,
        predecessor != null ? predecessor.counters() : new UpstreamTarget.Counters());
  }

  private record Resolved(String name, SocketAddress address, String host) {}

  private List<Resolved> resolve(Endpoint endpoint, List<Unresolved> failed) {
    return switch (endpoint) {
      case Endpoint.Unix unix -> List.of(new Resolved(unix.toString(), unix.socketAddress(), null));
      case Endpoint.Tcp tcp when isLiteral(tcp.host()) ->
          List.of(new Resolved(tcp.toString(), tcp.socketAddress(), tcp.host()));
      case Endpoint.Tcp tcp -> {
        List<Resolved> all = new ArrayList<>();
        String problem = "resolves to no address";
        try {
          for (InetAddress address : resolver.resolve(tcp.host())) {
            all.add(
                new Resolved(
                    tcp + " (" + address.getHostAddress() + ")",
                    new InetSocketAddress(address, tcp.port()),
                    tcp.host()));
          }
        } catch (UnknownHostException e) {
          problem = "cannot resolve: " + e.getMessage();
        }
        if (all.isEmpty()) {
          failed.add(new Unresolved(tcp.toString(), problem));
          all.addAll(lastAnswer(tcp)); // a lookup that fails now is a blip, not an empty answer
          LOG.warn(
              "cluster {}: {} {}{}",
              name(),
              tcp.host(),
              problem,
              all.isEmpty() ? "" : "; keeping its last addresses");
        }
        yield all;
      }
    };
  }

  /**
   * The addresses {@code tcp} had: the running targets for it, or while this cluster is being built
   * to take over from another, that one's (a reload during a DNS failure keeps its upstreams).
   */
  private List<Resolved> lastAnswer(Endpoint.Tcp tcp) {
    Collection<UpstreamTarget> known = inherited != null ? inherited.values() : upstreams;
    String prefix = tcp + " (";
    List<Resolved> kept = new ArrayList<>();
    for (UpstreamTarget u : known) {
      if (u.name().startsWith(prefix)) {
        kept.add(new Resolved(u.name(), u.address(), tcp.host()));
      }
    }
    return kept;
  }

  private static boolean isLiteral(String host) {
    return host.contains(":") || host.matches("[0-9.]+");
  }

  /**
   * The upstream for {@code pair}: picked by the balancer among the targets that may take a
   * connection and that it has not {@code tried} already.
   */
  public Choice choose(Pair pair, Collection<? extends Pair.Upstream> tried) {
    long now = System.nanoTime();
    List<UpstreamTarget> all = upstreams;
    List<UpstreamTarget> candidates = new ArrayList<>(all.size());
    for (UpstreamTarget u : all) {
      if (u.available(now) && !tried.contains(u)) {
        candidates.add(u);
      }
    }
    if (candidates.isEmpty()) {
      return new NoneAvailable(
          all.isEmpty()
              ? "cluster " + name() + " has no upstream" + unresolvedNote()
              : tried.isEmpty()
                  ? "no healthy upstream in cluster " + name()
                  : "no other healthy upstream in cluster " + name());
    }
    return new Chosen(balancer.pick(candidates, clientKey(pair), now));
  }

  private String unresolvedNote() {
    List<Unresolved> names = unresolved;
    return names.isEmpty()
        ? ""
        : " (" + names.getFirst().address() + " " + names.getFirst().problem() + ")";
  }

  /**
   * Passive health heard that a real connection to {@code target} failed: it is ejected once its
   * failures are enough, unless that would leave fewer of this cluster's upstreams available than
   * passive ejection must keep. Serialised, so that two loops cannot each take out one of the last
   * two at once.
   */
  Health.Verdict failed(UpstreamTarget target, Health.Failure kind, long nowNanos, String problem) {
    synchronized (ejections) {
      List<UpstreamTarget> all = upstreams;
      int othersAvailable = 0;
      for (UpstreamTarget u : all) {
        if (u != target && u.available(nowNanos)) {
          othersAvailable++;
        }
      }
      boolean mayEject = othersAvailable >= config.passive().minInService(all.size());
      return target.health().failed(kind, nowNanos, problem, mayEject);
    }
  }

  private static long clientKey(Pair pair) {
    if (pair != null
        && pair.facts().clientAddress() instanceof InetSocketAddress inet
        && inet.getAddress() != null) {
      byte[] bytes = inet.getAddress().getAddress();
      long key = 0;
      for (byte b : bytes) {
        key = key * 31 + (b & 0xff);
      }
      return key;
    }
    return 0;
  }

  @Override
  public String toString() {
    return "cluster " + name() + " " + upstreams;
  }
}
