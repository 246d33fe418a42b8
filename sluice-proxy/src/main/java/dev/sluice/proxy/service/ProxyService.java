package dev.sluice.proxy.service;

import dev.sluice.proxy.admin.AccessLog;
import dev.sluice.proxy.admin.AdminServer;
import dev.sluice.proxy.admin.Status;
import dev.sluice.proxy.admin.StatusReader;
import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.forward.ExchangeRecord;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.metrics.ProxyMetrics;
import dev.sluice.proxy.metrics.Sampler;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.runtime.ProxyRuntime;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The proxy as a long-running process: it runs a configuration file, reloads it on SIGHUP and when
 * the file or a certificate it names changes (debounced), and drains on SIGTERM. A configuration
 * that fails validation is rejected whole and logged; the running one stays. Around the running
 * proxy it keeps the operator surface: metrics, the admin listener and the access log (SIGUSR1
 * reopens its file). It tells a service manager (systemd, {@code Type=notify}) when it is ready,
 * reloading and stopping, and keeps its watchdog fed while the event loops are alive.
 */
public final class ProxyService implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProxyService.class);
  private static final Duration DEBOUNCE = Duration.ofMillis(500);

  private final Path configFile;
  private final ProxyRuntime runtime;
  private final ProxyMetrics metrics;
  private final Sampler sampler;
  private final StatusReader status;
  private final AccessLogRelay accessLog;
  private final SystemdNotifier notifier;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private volatile long lastReloadMillis;
  private volatile String lastReloadError;
  private volatile AdminServer admin;
  private Watchdog watchdog;
  private boolean stopping;
  private ConfigWatcher watcher;
  private Set<Path> watched = Set.of();

  private ProxyService(
      Path configFile,
      ProxyRuntime runtime,
      ProxyMetrics metrics,
      AccessLogRelay accessLog,
      SystemdNotifier notifier) {
    this.configFile = configFile;
    this.notifier = notifier;
    this.runtime = runtime;
    this.metrics = metrics;
    this.accessLog = accessLog;
    this.sampler = new Sampler(runtime);
    metrics.attach(runtime, sampler);
    this.status =
        new StatusReader(runtime, sampler, this::reloadStatus, System.currentTimeMillis());
  }

  /**
   * Runs {@code config}, read from {@code configFile} (null for a configuration that is not a file,
   * such as the embedded demo: then nothing is reloaded). {@code observer} hears of every pair, as
   * the metrics and the access log do.
   */
  public static ProxyService start(ProxyConfig config, Path configFile, PairObserver observer)
      throws ConfigException, IOException {
    return start(config, configFile, observer, SystemdNotifier.NONE);
  }

  /**
   * Like {@link #start(ProxyConfig, Path, PairObserver)}, telling {@code notifier} {@code READY=1}
   * once every listener is bound, the admin listener is up and the signals are handled (a reload
   * the manager asks for at once must find SIGHUP handled), and of every reload and the stop.
   */
  public static ProxyService start(
      ProxyConfig config, Path configFile, PairObserver observer, SystemdNotifier notifier)
      throws ConfigException, IOException {
    AccessLogRelay accessLog = new AccessLogRelay();
    if (config.accessLog() != null) {
      accessLog.set(AccessLog.open(config.accessLog()));
    }
    ProxyMetrics metrics = new ProxyMetrics();
    metrics.accessLogCounts(accessLog::written, accessLog::dropped);
    ProxyRuntime runtime;
    try {
      runtime = ProxyRuntime.start(config, observer.andThen(metrics).andThen(accessLog));
    } catch (ConfigException | IOException | RuntimeException e) {
      accessLog.close();
      throw e;
    }
    ProxyService service = new ProxyService(configFile, runtime, metrics, accessLog, notifier);
    try {
      if (config.admin() != null) {
        service.admin = AdminServer.start(config.admin().address(), service.status, metrics);
      }
    } catch (IOException e) {
      service.close();
      throw e;
    }
    handleSignal("USR1", accessLog::reopen, "restart to reopen the access log after rotating it");
    if (configFile != null) {
      handleSignal(
          "HUP",
          () -> service.reload("SIGHUP"),
          "reload by editing the configuration file, which is watched");
      service.watchOrWarn(config, "the configuration is running");
    }
    notifier.ready(service.serving());
    notifier
        .watchdogInterval()
        .ifPresent(
            interval ->
                service.watchdog = Watchdog.start(notifier, interval, service.status::stuckLoops));
    return service;
  }

  /** What {@code STATUS=} says while serving: each listener's name and bound address. */
  private String serving() {
    StringBuilder text = new StringBuilder("listening on ");
    String separator = "";
    for (ListenerRuntime l : runtime.listeners()) {
      text.append(separator).append(l.name()).append(' ').append(Endpoint.format(l.boundAddress()));
      separator = ", ";
    }
    AdminServer a = admin;
    if (a != null) {
      text.append("; admin ").append(a.addressText());
    }
    return text.toString();
  }

  /** Handles signal {@code name}, or warns that it does nothing here and what to do instead. */
  private static void handleSignal(String name, Runnable action, String instead) {
    switch (Signals.handle(name, action)) {
      case HANDLED -> {}
      case HANDLED_THOUGH_IGNORED_AT_START ->
          LOG.info(
              "SIG{} was ignored when this process started (nohup?); handled all the same", name);
      case IGNORED ->
          LOG.warn(
              "SIG{} is ignored by this process (started under nohup?) and does nothing: {}",
              name,
              instead);
      case UNAVAILABLE ->
          LOG.warn(
              "SIG{} cannot be handled in this JVM (-Xrs?) and does nothing: {}", name, instead);
    }
  }

  /** The running proxy. */
  public ProxyRuntime runtime() {
    return runtime;
  }

  /** Its metrics. */
  public ProxyMetrics metrics() {
    return metrics;
  }

  /** What the status page, /metrics.json and {@code sluice status} show. */
  public StatusReader status() {
    return status;
  }

  /** The admin listener, or null when none is configured. */
  public AdminServer admin() {
    return admin;
  }

  /** The access log now, or null when there is none. */
  public AccessLog accessLog() {
    return accessLog.current();
  }

  /** Reloads that took effect. */
  public long reloads() {
    return reloads.get();
  }

  /** Reloads rejected (the running configuration stayed). */
  public long failedReloads() {
    return failedReloads.get();
  }

  /** Bursts of file changes the watcher has examined so far (for tests: a change it ignored). */
  synchronized long watcherChecks() {
    return watcher == null ? 0 : watcher.checks();
  }

  private Status.Reloads reloadStatus() {
    return new Status.Reloads(
        reloads.get(), failedReloads.get(), lastReloadMillis, lastReloadError);
  }

  /**
   * Reads the configuration file again and applies it, or logs why not. The service manager hears
   * {@code RELOADING=1} before and {@code READY=1} after, whatever the outcome (unless a stop
   * began: it hears {@code STOPPING=1} instead).
   */
  public synchronized boolean reload(String why) {
    if (configFile == null) {
      return false;
    }
    if (stopping) {
      return apply(why);
    }
    notifier.reloading();
    boolean applied = apply(why);
    notifier.ready(
        applied
            ? serving()
            : "reload failed ("
                + firstLine(lastReloadError)
                + "); still running the previous configuration, "
                + serving());
    return applied;
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int end = text.indexOf('\n');
    return end < 0 ? text : text.substring(0, end);
  }

  private boolean apply(String why) {
    ProxyConfig running = runtime.config();
    AccessLog newLog = null;
    AdminServer newAdmin = null;
    ProxyConfig next;
    boolean logChanged;
    boolean adminChanged;
    // All or nothing: whatever fails before the runtime took the new configuration, checked or
    // not, closes what this reload opened and leaves the running one in force, counted as failed.
    try {
      next = ConfigReader.read(configFile);
      logChanged = !Objects.equals(next.accessLog(), running.accessLog());
      adminChanged = !Objects.equals(next.admin(), running.admin());
      if (logChanged && next.accessLog() != null) {
        newLog = AccessLog.open(next.accessLog());
      }
      if (adminChanged && next.admin() != null) {
        newAdmin = AdminServer.start(next.admin().address(), status, metrics);
      }
      runtime.reload(next);
    } catch (ConfigException | IOException | RuntimeException e) {
      if (newLog != null) {
        newLog.close();
      }
      if (newAdmin != null) {
        newAdmin.close();
      }
      if (e instanceof ConfigException rejected && !rejected.files().isEmpty()) {
        // Also watch what the rejected file names: a certificate that is not there yet (a Secret
        // mounted after its ConfigMap) brings the file another try when it appears. Before the
        // count, so that whoever sees the rejection counted sees it watched.
        Set<Path> files = new HashSet<>(filesOf(running));
        files.addAll(rejected.files());
        watchOrWarn(files, "the running configuration stays");
      }
      failedReloads.incrementAndGet();
      lastReloadError = e instanceof RuntimeException ? e.toString() : e.getMessage();
      metrics.reloaded(false);
      if (e instanceof RuntimeException) {
        LOG.error("configuration rejected ({}); still running the previous one", why, e);
      } else {
        LOG.error(
            "configuration rejected ({}); still running the previous one: {}", why, e.getMessage());
      }
      return false;
    }
    if (logChanged) {
      accessLog.set(newLog);
    }
    if (adminChanged) {
      AdminServer old = admin;
      admin = newAdmin;
      if (old != null) {
        old.close();
      }
    }
    reloads.incrementAndGet();
    lastReloadMillis = System.currentTimeMillis();
    lastReloadError = null;
    metrics.reloaded(true);
    LOG.info("configuration reloaded ({})", why);
    watchOrWarn(next, "configuration reloaded");
    return true;
  }

  /**
   * Watches {@code config}'s files. It is in force already: a watch that cannot be set up (the
   * inotify limits of a busy node, a directory that cannot be listed) costs the automatic reload,
   * never the proxy, and the next reload tries again.
   */
  private void watchOrWarn(ProxyConfig config, String state) {
    watchOrWarn(filesOf(config), state);
  }

  private void watchOrWarn(Set<Path> files, String state) {
    try {
      watch(files);
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}, but its files cannot be watched ({}); reload with SIGHUP", state, e.toString());
    }
  }

  private void watch(Set<Path> files) throws IOException {
    if (files.equals(watched)) {
      return;
    }
    if (watcher != null) {
      watcher.close();
    }
    watcher = ConfigWatcher.start(files, DEBOUNCE, () -> reload("a watched file changed"));
    watched = files;
  }

  private Set<Path> filesOf(ProxyConfig config) {
    Set<Path> files = new HashSet<>();
    files.add(configFile.toAbsolutePath());
    for (ListenerConfig l : config.listeners()) {
      if (l.tls() instanceof ListenerTls.Terminate t) {
        for (ListenerTls.Certificate c : t.certificates()) {
          c.files().forEach(file -> files.add(file.toAbsolutePath()));
        }
        if (t.clientCa() != null) {
          files.add(t.clientCa().toAbsolutePath());
        }
        if (t.ticketKeyFile() != null) {
          files.add(t.ticketKeyFile().toAbsolutePath());
        }
      }
    }
    // An upstream CA or client certificate renewed in place must reach new connections too.
    for (ClusterConfig c : config.clusters()) {
      if (c.tls() != null) {
        c.tls().files().forEach(file -> files.add(file.toAbsolutePath()));
      }
    }
    return files;
  }

  /**
   * Drains (see {@link ProxyRuntime#shutdown}) with the configured drain timeout. The admin
   * listener stays up meanwhile, saying not ready; the access log gets the drained pairs' lines.
   */
  public void shutdownGracefully() {
    Duration drain = runtime.config().drainTimeout();
    LOG.info("shutting down: draining open connections for up to {}", drain);
    stop(drain);
    LOG.info("stopped");
  }

  /** Blocks until the service has stopped. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    stop(Duration.ZERO);
  }

  private void stop(Duration drain) {
    // Under the lock a reload holds, so that no READY=1 of a reload follows STOPPING=1.
    synchronized (this) {
      if (!stopping) {
        stopping = true;
        notifier.stopping(
            drain.isZero()
                ? "stopping"
                : "draining open connections for up to " + Units.formatDuration(drain));
      }
      if (watchdog != null) {
        watchdog.close();
      }
      if (watcher != null) {
        watcher.close();
      }
    }
    // Each step whatever the one before did: the access log's last lines must reach the file
    // even when a stuck loop makes the runtime's shutdown throw.
    try {
      runtime.shutdown(drain);
    } finally {
      try {
        AdminServer a = admin;
        if (a != null) {
          a.close();
        }
        sampler.close();
      } finally {
        try {
          accessLog.close();
        } finally {
          stopped.countDown();
        }
      }
    }
  }

  /**
   * What the runtime's pairs report their end to: the access log of the moment, which a reload may
   * replace (the old one is closed once the new one takes the lines).
   */
  private static final class AccessLogRelay implements PairObserver {
    private volatile AccessLog log;
    private long closedWritten;
    private long closedDropped;

    AccessLog current() {
      return log;
    }

    synchronized void set(AccessLog next) {
      AccessLog old = log;
      log = next;
      if (old != null) {
        old.close();
        closedWritten += old.written();
        closedDropped += old.dropped();
      }
    }

    synchronized long written() {
      AccessLog l = log;
      return closedWritten + (l == null ? 0 : l.written());
    }

    synchronized long dropped() {
      AccessLog l = log;
      return closedDropped + (l == null ? 0 : l.dropped());
    }

    void reopen() {
      AccessLog l = log;
      if (l != null) {
        l.reopen();
      }
    }

    @Override
    public void onHttpExchange(ListenerRuntime listener, Pair pair, ExchangeRecord exchange) {
      AccessLog l = log;
      if (l != null) { // no log, no line formatted
        l.onHttpExchange(listener, pair, exchange);
      }
    }

    @Override
    public void onPairClosed(ListenerRuntime listener, Pair pair) {
      AccessLog l = log;
      if (l != null) {
        l.onPairClosed(listener, pair);
      }
    }

    void close() {
      set(null);
    }
  }
}
