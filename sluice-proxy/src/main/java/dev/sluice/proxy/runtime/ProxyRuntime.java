package dev.sluice.proxy.runtime;

import dev.sluice.net.EventLoop;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.Transport;
import dev.sluice.net.TransportConfig;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.Resolver;
import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.Problem;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.config.SpliceMode;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.InFlightBudget;
import dev.sluice.proxy.forward.PairRegistry;
import dev.sluice.proxy.health.HealthChecker;
import dev.sluice.proxy.limit.Admission;
import dev.sluice.proxy.metrics.ListenerStats;
import dev.sluice.proxy.proxyprotocol.ProxyProtocolStage;
import dev.sluice.proxy.route.FingerprintCheck;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The running proxy: one event-loop group, the listeners and clusters of its configuration, and the
 * proxy-wide bound on bytes in flight. {@link #reload} swaps in a new configuration without
 * dropping a pair; {@link #shutdown} drains.
 */
public final class ProxyRuntime implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProxyRuntime.class);

  private final EventLoopGroup group;
  private final InFlightBudget budget;
  private final PairObserver observer;
  private final int slabSize;
  private final Map<String, ListenerRuntime> listeners = new LinkedHashMap<>();

  /**
   * Listeners a reload removed whose pairs may still be open: a shutdown drains those too (a moved
   * listener needs no entry, its successor counts its pairs).
   */
  private final List<ListenerRuntime> retired = new ArrayList<>();

  private final Resolver resolver;
  private final Map<Cluster, ClusterJobs> jobs = new java.util.HashMap<>();

  /** What each cluster's upstream TLS files held when its client was built. */
  private final Map<Cluster, TlsFiles> tlsFiles = new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.concurrent.ScheduledExecutorService dns =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("sluice-dns").daemon(true).factory());
  private volatile ProxyConfig config;
  private volatile Map<String, Cluster> clusters;
  private volatile boolean stopped;

  /**
   * The listeners as last published, for readers (metrics, the status page, readiness) that must
   * not wait behind a reload, which holds this object's lock while it resolves names and binds.
   */
  private volatile List<ListenerRuntime> published = List.of();

  /** What runs for a cluster besides its pairs: its health checks and DNS refreshes. */
  private record ClusterJobs(HealthChecker checker, DnsRefresh refresh) {
    void stop() {
      if (checker != null) {
        checker.close();
      }
      if (refresh != null) {
        refresh.stop();
      }
    }
  }

  private ProxyRuntime(ProxyConfig config, PairObserver observer, int eventLoops, Resolver resolver)
      throws ConfigException {
    this.config = config;
    this.observer = observer;
    this.resolver = resolver;
    this.slabSize = slabSizeFor(config);
    this.group =
        new EventLoopGroup(
            TransportConfig.defaults()
                .withEventLoops(eventLoops)
                .withSlab(slabSize, Math.min(TransportConfig.DEFAULT_COPY_THRESHOLD, slabSize))
                .withTransport(transportFor(config))
                .withSplicePipesPerLoop(
                    config.splice() == SpliceMode.OFF
                        ? 0
                        : TransportConfig.DEFAULT_SPLICE_PIPES_PER_LOOP));
    this.budget = new InFlightBudget(config.maxBytesInFlight());
    this.clusters = clustersOf(config, Map.of(), resolver, tlsFiles);
  }

  /**
   * The configuration's transport; {@code auto} defers to the JVM's default ({@code
   * sluice.transport}, else epoll where it runs).
   */
  private static Transport transportFor(ProxyConfig config) {
    return config.transport() == Transport.AUTO
        ? TransportConfig.defaults().transport()
        : config.transport();
  }

  /**
   * Starts a proxy for {@code config}: every listener bound, or none (a listener that cannot bind
   * fails the start, naming its address).
   */
  public static ProxyRuntime start(ProxyConfig config, PairObserver observer)
      throws ConfigException, IOException {
    return start(config, observer, Runtime.getRuntime().availableProcessors());
  }

  /** Like {@link #start(ProxyConfig, PairObserver)} with a given number of event loops. */
  public static ProxyRuntime start(ProxyConfig config, PairObserver observer, int eventLoops)
      throws ConfigException, IOException {
    return start(config, observer, eventLoops, Resolver.SYSTEM);
  }

  /** Like {@link #start(ProxyConfig, PairObserver, int)} with a given DNS resolver. */
  public static ProxyRuntime start(
      ProxyConfig config, PairObserver observer, int eventLoops, Resolver resolver)
      throws ConfigException, IOException {
    ProxyRuntime proxy = new ProxyRuntime(config, observer, eventLoops, resolver);
    try {
      proxy.startJobs(proxy.clusters, Map.of());
      for (ListenerConfig l : config.listeners()) {
        ListenerRuntime listener =
            new ListenerRuntime(
                settingsFor(l, proxy.clusters, config.source(), null),
                proxy.budget,
                observer,
                null);
        listener.bind(proxy.group);
        proxy.listeners.put(l.name(), listener);
        proxy.published = List.copyOf(proxy.listeners.values());
      }
    } catch (ConfigException | IOException | RuntimeException e) {
      proxy.close();
      throw e;
    }
    return proxy;
  }

  /** The configuration running now. */
  public ProxyConfig config() {
    return config;
  }

  /** The listeners, in configuration order. */
  public List<ListenerRuntime> listeners() {
    return published;
  }

  /** The listener of that name, or null. */
  public ListenerRuntime listener(String name) {
    for (ListenerRuntime l : published) {
      if (l.name().equals(name)) {
        return l;
      }
    }
    return null;
  }

  /** The clusters, by name, in configuration order. */
  public Map<String, Cluster> clusters() {
    return clusters;
  }

  /** The proxy-wide bound on bytes in pending copies, with what it holds now. */
  public InFlightBudget budget() {
    return budget;
  }

  /** Whether a shutdown began (the proxy drains and takes no new connections). */
  public boolean isStopping() {
    return stopped;
  }

  /** The event loops. */
  public EventLoopGroup group() {
    return group;
  }

  /**
   * Replaces the configuration. New connections get the new one at once; established pairs keep
   * their route and upstream and take the new read sizes and timeouts. A listener whose address
   * changed is bound anew (the old socket closes once the new one is bound); one that is gone stops
   * accepting, its pairs going on. A terminating listener whose TLS settings and files are as they
   * were keeps its TLS context, so that its clients resume their sessions. Nothing is changed when
   * anything fails: a new address that cannot be bound, TLS material that does not load, a read
   * size above the slab this process started with, another transport.
   *
   * @throws ConfigException naming what could not be applied; the running configuration stays
   */
  public synchronized void reload(ProxyConfig next) throws ConfigException {
    if (stopped) {
      throw new ConfigException(
          List.of(new Problem(next.source(), 0, "", "the proxy is stopping")));
    }
    List<Problem> problems = new ArrayList<>();
    if (transportFor(next).resolve() != group.transport()) {
      problems.add(
          new Problem(
              next.source(),
              0,
              "transport",
              "the event loops run on "
                  + group.transport().id()
                  + " and keep it until a restart (asked for "
                  + next.transport().id()
                  + ")"));
    }
    if (next.splice() != config.splice()) {
      problems.add(
          new Problem(
              next.source(),
              0,
              "splice",
              "splicing is "
                  + config.splice().id()
                  + " until a restart (asked for "
                  + next.splice().id()
                  + ")"));
    }
    for (ListenerConfig l : next.listeners()) {
      int largest = Math.max(l.reads().client(), l.reads().upstream());
      if (largest > slabSize) {
        problems.add(
            new Problem(
                next.source(),
                0,
                "listeners." + l.name() + ".buffers",
                "a read size of "
                    + Units.formatSize(largest)
                    + " is above the "
                    + Units.formatSize(slabSize)
                    + " read slab this process started with; restart to raise it"));
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    Map<String, Cluster> nextClusters = clustersOf(next, clusters, resolver, tlsFiles);
    Map<String, ListenerRuntime.Settings> settings = new LinkedHashMap<>();
    for (ListenerConfig l : next.listeners()) {
      ListenerRuntime running = listeners.get(l.name());
      settings.put(
          l.name(),
          settingsFor(l, nextClusters, next.source(), running == null ? null : running.settings()));
    }
    // Bind what is new before touching anything, so that a failure changes nothing: whatever
    // fails a bind, checked or not, unbinds what this reload bound already.
    Map<String, ListenerRuntime> fresh = new LinkedHashMap<>();
    ListenerConfig binding = null;
    try {
      for (ListenerConfig l : next.listeners()) {
        ListenerRuntime running = listeners.get(l.name());
        if (running == null || !running.config().address().equals(l.address())) {
          binding = l;
          ListenerRuntime listener =
              new ListenerRuntime(
                  settings.get(l.name()),
                  budget,
                  observer,
                  running == null ? null : running.stats());
          listener.bind(group);
          fresh.put(l.name(), listener);
        }
      }
    } catch (IOException | RuntimeException e) {
      fresh.values().forEach(ListenerRuntime::unbind);
      budget.keepShares(listeners.keySet()); // a new listener's share must not halve the others'
      if (e instanceof RuntimeException) {
        LOG.warn("binding listener {} on {} failed", binding.name(), binding.address(), e);
      }
      throw new ConfigException(
          List.of(
              new Problem(
                  next.source(),
                  0,
                  "listeners." + binding.name() + ".address",
                  e instanceof IOException
                      ? e.getMessage()
                      : "cannot bind " + binding.address() + ": " + e)));
    }
    Map<String, ListenerRuntime> replaced = new LinkedHashMap<>();
    Map<String, ListenerRuntime> kept = new LinkedHashMap<>();
    for (ListenerConfig l : next.listeners()) {
      ListenerRuntime listener = fresh.get(l.name());
      if (listener == null) {
        listener = listeners.get(l.name());
        listener.update(settings.get(l.name()));
      }
      kept.put(l.name(), listener);
    }
    for (Map.Entry<String, ListenerRuntime> old : listeners.entrySet()) {
      ListenerRuntime successor = kept.get(old.getKey());
      if (successor != old.getValue()) {
        replaced.put(old.getKey(), old.getValue());
        if (successor == null || successor.stats() != old.getValue().stats()) {
          retired.add(old.getValue());
        }
      }
    }
    retired.removeIf(gone -> gone.stats().openCount() == 0);
    listeners.clear();
    listeners.putAll(kept);
    published = List.copyOf(listeners.values());
    startJobs(nextClusters, clusters);
    tlsFiles.keySet().retainAll(nextClusters.values());
    clusters = nextClusters;
    config = next;
    budget.setMax(next.maxBytesInFlight());
    budget.keepShares(listeners.keySet());
    replaced.values().forEach(ListenerRuntime::unbind); // their pairs go on, on the old settings
    forEachPair(pair -> pair.settingsChanged());
    LOG.info(
        "reloaded {}: {} listeners ({} bound anew, {} stopped), {} clusters",
        next.source(),
        kept.size(),
        fresh.size(),
        replaced.size(),
        nextClusters.size());
  }

  /**
   * Stops accepting, lets open pairs finish for up to {@code drain}, then closes what is left with
   * cause {@code shutdown} and stops the loops.
   */
  public void shutdown(Duration drain) {
    List<ListenerRuntime> bound;
    List<ListenerRuntime> all = new ArrayList<>();
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
      bound = List.copyOf(listeners.values());
      all.addAll(bound);
      all.addAll(retired); // their pairs drain like any other
    }
    bound.forEach(ListenerRuntime::unbind);
    synchronized (this) {
      jobs.values().forEach(ClusterJobs::stop);
      jobs.clear();
    }
    dns.shutdownNow();
    forEachPair(
        dev.sluice.proxy.forward.Pair
            ::drain); // idle HTTP keep-alive connections end now, busy ones after a response
    long deadline = System.nanoTime() + drain.toNanos();
    while (openPairs(all) > 0 && System.nanoTime() < deadline) {
      sleep(20);
    }
    long left = openPairs(all);
    if (left > 0) {
      LOG.info("closing {} pairs still open after the {} drain", left, Units.formatDuration(drain));
      forEachPair(pair -> pair.close(CloseCause.SHUTDOWN, "the proxy shut down", false));
      long closeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      while (openPairs(all) > 0 && System.nanoTime() < closeDeadline) {
        sleep(10);
      }
    }
    group.close();
  }

  private static long openPairs(List<ListenerRuntime> listeners) {
    return listeners.stream()
        .map(ListenerRuntime::stats)
        .distinct() // a moved listener and its predecessor count the same pairs
        .mapToLong(ListenerStats::openCount)
        .sum();
  }

  /** Runs {@code action} on every open pair, each on its own loop, and waits for them. */
  public void forEachPair(java.util.function.Consumer<dev.sluice.proxy.forward.Pair> action) {
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (EventLoop loop : group.loops()) {
      CompletableFuture<Void> f = new CompletableFuture<>();
      loop.submit(
          () -> {
            try {
              PairRegistry.of(loop).forEach(action);
            } finally {
              f.complete(null);
            }
          },
          () -> f.complete(null));
      done.add(f);
    }
    if (!group.inLoop()) {
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    }
  }

  @Override
  public void close() {
    shutdown(Duration.ZERO);
  }

  // ---- building ----

  private static ListenerRuntime.Settings settingsFor(
      ListenerConfig l,
      Map<String, Cluster> clusterMap,
      String source,
      ListenerRuntime.Settings running)
      throws ConfigException {
    TlsServer tls = null;
    TlsFiles tlsFiles = TlsFiles.NONE;
    if (l.tls() instanceof ListenerTls.Terminate terminate) {
      tlsFiles = TlsFiles.of(terminate); // read before the load: a change in between is seen next
      tls =
          running != null
                  && terminate.equals(running.config().tls())
                  && tlsFiles.equals(running.tlsFiles())
              // The same context: its session cache and ticket keys, so that clients resume.
              ? running.tls().withHandshakeTimeout(l.timeouts().handshake())
              : TlsSetup.server(terminate, l.timeouts().handshake(), source, l.name());
    }
    // The same listener's limits go on with their state (the counts per address, the rate's
    // tokens), changed or not: a reload must not let a client past a limit it had reached.
    Admission admission =
        running != null ? running.admission().reconfigured(l.limits()) : new Admission(l.limits());
    ProxyProtocolStage proxyProtocol =
        l.proxyProtocol() == null ? null : new ProxyProtocolStage(l.proxyProtocol());
    return new ListenerRuntime.Settings(
        l,
        tls,
        tlsFiles,
        clusterMap,
        // Built once here, not per connect: the upstream connection keeps its options.
        SocketOptions.defaults().withConnectTimeout(l.timeouts().connect()),
        admission,
        proxyProtocol,
        FingerprintCheck.of(l.limits().ja3Blocklist(), l.limits().ja4Blocklist()));
  }

  /**
   * Clusters of {@code next}, reusing the running ones whose configuration did not change, nor the
   * contents of their TLS files ({@code loaded}: what they held when each client was built; the new
   * ones' are added).
   */
  private static Map<String, Cluster> clustersOf(
      ProxyConfig next,
      Map<String, Cluster> running,
      Resolver resolver,
      Map<Cluster, TlsFiles> loaded)
      throws ConfigException {
    Map<String, Cluster> map = new LinkedHashMap<>();
    for (ClusterConfig c : next.clusters()) {
      Cluster current = running.get(c.name());
      // Read before the load: a change in between is seen by the next reload.
      TlsFiles files = TlsFiles.of(c.tls());
      if (current != null
          && current.config().equals(c)
          && files.equals(loaded.getOrDefault(current, TlsFiles.NONE))) {
        map.put(c.name(), current);
      } else {
        TlsClient tls =
            c.tls() == null
                ? null
                : TlsSetup.client(c.tls(), c.tls().handshakeTimeout(), next.source(), c.name());
        Cluster cluster = new Cluster(c, resolver, tls, current); // carries current's state over
        loaded.put(cluster, files);
        map.put(c.name(), cluster);
      }
    }
    return java.util.Collections.unmodifiableMap(map); // in configuration order, for pages
  }

  /** Starts the checks and refreshes of the clusters that are new, stops those of the gone ones. */
  private synchronized void startJobs(Map<String, Cluster> next, Map<String, Cluster> previous) {
    for (Cluster gone : previous.values()) {
      if (!next.containsValue(gone)) {
        ClusterJobs j = jobs.remove(gone);
        if (j != null) {
          j.stop();
        }
      }
    }
    for (Cluster cluster : next.values()) {
      ClusterJobs running = jobs.get(cluster);
      if (running != null) {
        if (running.refresh() != null) {
          running.refresh().now(); // a reload resolves names again, changed or not
        }
        continue;
      }
      cluster.adoptHealth();
      HealthChecker checker = null;
      if (cluster.config().healthCheck() != null) {
        checker = new HealthChecker(cluster, group);
        checker.start();
      }
      DnsRefresh refresh = null;
      if (cluster.hasHostNames()) {
        HealthChecker checks = checker;
        refresh =
            new DnsRefresh(
                cluster,
                dns,
                () -> {
                  if (checks != null) {
                    checks.start(); // check the new upstreams too
                  }
                });
        refresh.start();
      }
      jobs.put(cluster, new ClusterJobs(checker, refresh));
    }
  }

  private static int slabSizeFor(ProxyConfig config) {
    int largest = 64 * 1024;
    for (ListenerConfig l : config.listeners()) {
      largest = Math.max(largest, Math.max(l.reads().client(), l.reads().upstream()));
    }
    return largest;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
