package dev.sluice.proxy.runtime;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.DetectingHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.Limits;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ListenerHttp;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.ReadSizes;
import dev.sluice.proxy.config.Route;
import dev.sluice.proxy.config.TimeoutSettings;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.ExchangeRecord;
import dev.sluice.proxy.forward.InFlightBudget;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.forward.Relay;
import dev.sluice.proxy.forward.UpstreamChoice;
import dev.sluice.proxy.limit.Admission;
import dev.sluice.proxy.metrics.ListenerStats;
import dev.sluice.proxy.proxyprotocol.ProxyProtocolStage;
import dev.sluice.proxy.route.ClientHelloDetector;
import dev.sluice.proxy.route.FingerprintCheck;
import dev.sluice.proxy.route.TlsHelloDetector;
import dev.sluice.tls.TlsServer;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One configured listener at run time: its bound socket, its current settings (which a reload
 * replaces, reaching established pairs too), its counters, and the pairs it makes.
 */
public final class ListenerRuntime implements Pair.Owner {
  private static final long WARN_INTERVAL_NANOS = 10_000_000_000L;

  /** The most bytes of ClientHello a terminating listener reads for its fingerprints. */
  private static final int TLS_CLIENT_HELLO_BYTES = 16 * 1024;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ListenerRuntime.class);

  /**
   * Everything a reload may change about a listener, swapped as one.
   *
   * @param tlsFiles what the TLS files held when {@code tls} was built (a reload that finds them
   *     and the TLS settings unchanged keeps {@code tls}, and so its sessions)
   * @param proxyProtocol the stage reading PROXY protocol headers first, or null
   * @param fingerprints the JA3 and JA4 blocklists of the listener's limits
   */
  record Settings(
      ListenerConfig config,
      TlsServer tls,
      TlsFiles tlsFiles,
      Map<String, Cluster> clusters,
      SocketOptions upstream,
      Admission admission,
      ProxyProtocolStage proxyProtocol,
      FingerprintCheck fingerprints) {}

  private final String name;
  private final ListenerStats stats;
  private final InFlightBudget.Share budget;
  private final PairObserver observer;
  private volatile Settings settings;
  private volatile Listener listener;
  private Path unixPath;
  private Object unixInode;

  /**
   * A listener; {@code stats} are its predecessor's when a reload moves it to a new address, so
   * that its counters never go down, its open pairs stay counted (limits, drain) and their ends are
   * counted too; null for a new listener.
   */
  ListenerRuntime(
      Settings settings, InFlightBudget budget, PairObserver observer, ListenerStats stats) {
    this.name = settings.config().name();
    this.settings = settings;
    this.budget = budget.share(name);
    this.observer = observer;
    this.stats = stats != null ? stats : new ListenerStats(name);
  }

  /** The listener's name. */
  public String name() {
    return name;
  }

  /** Its counters. */
  public ListenerStats stats() {
    return stats;
  }

  /** Its configuration now. */
  public ListenerConfig config() {
    return settings.config();
  }

  /** The engine its TLS termination runs on ({@code openssl}, {@code jdk}), or null for none. */
  public String tlsEngine() {
    TlsServer tls = settings.tls();
    return tls == null ? null : tls.engine().label();
  }

  /**
   * The library under its TLS engine: OpenSSL's or BoringSSL's version text for the OpenSSL engine,
   * {@code SunJSSE} (the JDK's provider) for the JDK's; null without TLS termination.
   */
  public String tlsLibrary() {
    TlsServer tls = settings.tls();
    if (tls == null) {
      return null;
    }
    return tls.engine() == dev.sluice.tls.TlsEngineKind.OPENSSL
        ? dev.sluice.tls.TlsEngineKind.openSslVersion()
        : "SunJSSE";
  }

  /** Where it is bound (the real port when 0 was asked for), or null before binding. */
  public SocketAddress boundAddress() {
    if (listener == null) {
      return null;
    }
    return unixPath != null ? UnixDomainSocketAddress.of(unixPath) : listener.localAddress();
  }

  /**
   * Binds and starts accepting. A Unix socket is bound under a temporary name and renamed over the
   * configured path, so that a stale file from an earlier run, or a process still draining on the
   * old socket, does not stop a new one from starting.
   */
  void bind(EventLoopGroup group) throws IOException {
    Endpoint endpoint = settings.config().address();
    SocketOptions options =
        SocketOptions.defaults().withReusePort(endpoint instanceof Endpoint.Tcp);
    Supplier<ConnectionHandler> handlers = this::newConnection;
    if (endpoint instanceof Endpoint.Unix unix) {
      Path target = unix.path().toAbsolutePath();
      Path temporary =
          target.resolveSibling(
              "." + target.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
      Files.deleteIfExists(temporary);
      listener = group.listen(UnixDomainSocketAddress.of(temporary), options, handlers);
      try {
        Files.move(
            temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        unixPath = target;
        unixInode = Files.getAttribute(target, "unix:ino");
      } catch (IOException | UnsupportedOperationException e) {
        listener.close();
        throw new IOException(
            "cannot put the socket in place at " + target + ": " + e.getMessage(), e);
      }
    } else {
      listener = group.listen(endpoint.socketAddress(), options, handlers);
    }
    LOG.info("listener {} on {}", name, boundAddress());
  }

  /** Stops accepting; established pairs go on. Waits until the socket is unbound. */
  void unbind() {
    if (listener == null) {
      return;
    }
    listener.close();
    if (unixPath != null) {
      try {
        if (Files.exists(unixPath) && unixInode.equals(Files.getAttribute(unixPath, "unix:ino"))) {
          Files.delete(unixPath); // still ours, not a newer process's
        }
      } catch (IOException e) {
        LOG.debug("could not remove {}", unixPath, e);
      }
    }
  }

  /** Times accepting paused because file descriptors ran out (the core backs off). */
  public long acceptBackoffs() {
    Listener bound = listener;
    return bound == null ? 0 : bound.acceptBackoffCount();
  }

  /** Whether its socket is bound and accepting. */
  public boolean isBound() {
    Listener bound = listener;
    return bound != null && !bound.isClosed();
  }

  Settings settings() {
    return settings;
  }

  void update(Settings next) {
    settings = next;
  }

  // ---- accepting ----

  private ConnectionHandler newConnection() {
    stats.accepted();
    Settings now = settings;
    Pair pair = new Pair(this);
    int max = now.config().maxConnections();
    if (max > 0 && stats.openCount() > max) {
      return refuse(
          pair, CloseCause.LIMIT_REACHED, "listener " + name + " has " + max + " connections");
    }
    CloseCause byRate = now.admission().byRate();
    if (byRate != null) {
      return refuse(
          pair,
          byRate,
          "listener "
              + name
              + " takes "
              + now.config().limits().connectionsPerSecond()
              + " new connections a second");
    }
    ConnectionHandler first =
        switch (now.config().tls()) {
          case null -> pair.client();
          case ListenerTls.Terminate t ->
              // The ClientHello is read for its fingerprints first, then replayed to TLS.
              new DetectingHandler(
                  new TlsHelloDetector(
                      pair,
                      now.tls().newPortHandler(pair.client(), budget),
                      TLS_CLIENT_HELLO_BYTES,
                      now.fingerprints(),
                      now.config().timeouts().handshake()),
                  TLS_CLIENT_HELLO_BYTES,
                  now.config().timeouts().handshake(),
                  budget);
          case ListenerTls.Passthrough p ->
              new DetectingHandler(
                  new ClientHelloDetector(pair, p.maxClientHelloBytes(), now.fingerprints()),
                  p.maxClientHelloBytes(),
                  now.config().timeouts().handshake(),
                  budget);
        };
    Limits limits = now.config().limits();
    boolean byAddress =
        !limits.allow().isEmpty() || !limits.deny().isEmpty() || limits.perSourceAddress() > 0;
    ConnectionHandler client = byAddress ? new AddressCheck(pair, now.admission(), first) : first;
    // With PROXY protocol the header comes before everything (the TLS handshake, the ClientHello),
    // and the address limits judge the client it names, as HAProxy's ACLs do after accept-proxy.
    return now.proxyProtocol() == null ? client : now.proxyProtocol().first(pair, client, budget);
  }

  private static ConnectionHandler refuse(Pair pair, CloseCause cause, String detail) {
    return new Refusal(pair, cause, detail);
  }

  /**
   * Judges the client's address (networks, connections per address) before anything else runs for
   * it, not even a TLS handshake: the peer's, or the original client's that a PROXY protocol header
   * named (a LOCAL header leaves the peer's).
   */
  private record AddressCheck(Pair pair, Admission admission, ConnectionHandler next)
      implements ConnectionHandler {
    @Override
    public void onActive(Connection connection) {
      pair.facts().peerAddress(connection.remoteAddress());
      SocketAddress client = pair.facts().clientAddress();
      CloseCause refused = admission.byAddress(client);
      if (refused != null) {
        String detail = client + " " + refused.label();
        pair.refused(refused, detail);
        connection.close(new CloseReason.Rejected(refused.label(), detail));
        return;
      }
      pair.releaseOnEnd(() -> admission.release(client));
      connection.switchHandler(next);
    }

    // After a PROXY protocol header the first stage replays what followed it to this handler,
    // which has already handed the connection on: those bytes, and the end of input, go on too.

    @Override
    public void onRead(Connection connection, dev.sluice.memory.BorrowedBytes bytes) {
      next.onRead(connection, bytes);
    }

    @Override
    public void onEndOfInput(Connection connection) {
      next.onEndOfInput(connection);
    }
  }

  /**
   * Closes a connection refused at accept, once it is active: only then is the client's address
   * known, and the pair ends after it is recorded, for the access log line to name the client.
   */
  private record Refusal(Pair pair, CloseCause cause, String detail) implements ConnectionHandler {
    @Override
    public void onActive(Connection connection) {
      pair.facts().peerAddress(connection.remoteAddress());
      pair.refused(cause, detail);
      connection.close(new CloseReason.Rejected(cause.label(), detail));
    }

    @Override
    public void onRead(Connection connection, dev.sluice.memory.BorrowedBytes bytes) {}
  }

  // ---- Pair.Owner ----

  @Override
  public InFlightBudget.Share budget() {
    return budget;
  }

  @Override
  public TimeoutSettings timeouts() {
    return settings.config().timeouts();
  }

  @Override
  public ReadSizes reads() {
    return settings.config().reads();
  }

  @Override
  public UpstreamChoice choose(Pair pair, java.util.List<Pair.Upstream> tried) {
    Settings now = settings;
    String cluster =
        pair.facts().route() != null
            ? pair.facts().route()
            : switch (now.config().route()) {
              case Route.ToCluster to -> to.cluster();
              case Route.BySni sni -> sni.clusterFor(pair.facts().serverName());
            };
    if (cluster == null) {
      return new UpstreamChoice.NoRoute(
          pair.facts().serverName() == null
              ? "no route for a client without a server name"
              : "no route for server name " + pair.facts().serverName());
    }
    Cluster target = now.clusters().get(cluster);
    if (target == null) {
      return new UpstreamChoice.NoRoute("cluster " + cluster + " is gone");
    }
    return switch (target.choose(pair, tried)) {
      case Cluster.Chosen chosen -> new UpstreamChoice.To(chosen.upstream());
      case Cluster.NoneAvailable none -> new UpstreamChoice.NoneHealthy(none.why());
    };
  }

  @Override
  public ListenerHttp http() {
    return settings.config().http();
  }

  @Override
  public Relay relay(Pair pair) {
    ListenerHttp http = settings.config().http();
    return http == null ? Relay.rawPipe() : Relay.http(http);
  }

  @Override
  public boolean requireSni() {
    return settings.config().limits().requireSni();
  }

  @Override
  public SocketOptions upstreamOptions() {
    return settings.upstream();
  }

  @Override
  public void onForwarding(Pair pair) {
    observer.onPairForwarding(this, pair);
  }

  @Override
  public void onHttpExchange(Pair pair, ExchangeRecord exchange) {
    if (exchange.hasResponse()) {
      stats.httpResponse(exchange.route(), exchange.status());
    }
    observer.onHttpExchange(this, pair, exchange);
  }

  @Override
  public void onBytesRead(dev.sluice.proxy.forward.Side side, int bytes) {
    stats.read(side, bytes);
  }

  @Override
  public void onTlsHandshake(boolean resumed) {
    stats.handshake(resumed);
  }

  @Override
  public void onClosed(Pair pair) {
    stats.closed(pair.cause());
    if (pair.cause() == CloseCause.FD_EXHAUSTED) {
      warnOutOfDescriptors(pair);
    }
    observer.onPairClosed(this, pair);
  }

  private long lastDescriptorWarningNanos;
  private long descriptorFailuresUnwarned;

  /** One warning per interval: out of descriptors, a line per client would flood the log. */
  private synchronized void warnOutOfDescriptors(Pair pair) {
    long now = System.nanoTime();
    descriptorFailuresUnwarned++;
    if (lastDescriptorWarningNanos != 0 && now - lastDescriptorWarningNanos < WARN_INTERVAL_NANOS) {
      return;
    }
    lastDescriptorWarningNanos = now;
    try {
      LOG.warn(
          "listener {}: no file descriptor left to connect upstream; {} client(s) closed with"
              + " cause fd_exhausted since the last warning ({}); open pairs are untouched."
              + " Raise the open-files limit (ulimit -n, systemd LimitNOFILE)",
          name,
          descriptorFailuresUnwarned,
          pair.causeDetail());
    } catch (RuntimeException | Error loggingFailed) {
      // Out of descriptors, logging can fail too; the metrics still count every close.
      if (loggingFailed instanceof VirtualMachineError fatal) {
        throw fatal;
      }
    }
    descriptorFailuresUnwarned = 0;
  }

  @Override
  public String toString() {
    return "listener " + name + " on " + boundAddress();
  }
}
