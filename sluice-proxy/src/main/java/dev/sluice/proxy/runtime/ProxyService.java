package dev.sluice.proxy.runtime;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.ProxyConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The proxy as a long-running process: it runs a configuration file, reloads it on SIGHUP and when
 * the file or a certificate it names changes (debounced), and drains on SIGTERM. A configuration
 * that fails validation is rejected whole and logged; the running one stays.
 */
public final class ProxyService implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProxyService.class);
  private static final Duration DEBOUNCE = Duration.ofMillis(500);

  private final Path configFile;
  private final ProxyRuntime runtime;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong reloads = new AtomicLong();
  private final AtomicLong failedReloads = new AtomicLong();
  private ConfigWatcher watcher;
  private Set<Path> watched = Set.of();

  private ProxyService(Path configFile, ProxyRuntime runtime) {
    this.configFile = configFile;
    this.runtime = runtime;
  }

  /**
   * Runs {@code config}, read from {@code configFile} (null for a configuration that is not a file,
   * such as the embedded demo: then nothing is reloaded).
   */
  public static ProxyService start(ProxyConfig config, Path configFile, PairObserver observer)
      throws ConfigException, IOException {
    ProxyService service = new ProxyService(configFile, ProxyRuntime.start(config, observer));
    if (configFile != null) {
      Signals.handle("HUP", () -> service.reload("SIGHUP"));
      service.watch(config);
    }
    return service;
  }

  /** The running proxy. */
  public ProxyRuntime runtime() {
    return runtime;
  }

  /** Reloads that took effect. */
  public long reloads() {
    return reloads.get();
  }

  /** Reloads rejected (the running configuration stayed). */
  public long failedReloads() {
    return failedReloads.get();
  }

  /** Reads the configuration file again and applies it, or logs why not. */
  public synchronized boolean reload(String why) {
    if (configFile == null) {
      return false;
    }
    try {
      ProxyConfig next = ConfigReader.read(configFile);
      runtime.reload(next);
      reloads.incrementAndGet();
      LOG.info("configuration reloaded ({})", why);
      watch(next);
      return true;
    } catch (ConfigException e) {
      failedReloads.incrementAndGet();
      LOG.error(
          "configuration rejected ({}); still running the previous one: {}", why, e.getMessage());
      return false;
    } catch (IOException e) {
      failedReloads.incrementAndGet();
      LOG.error("cannot watch the configuration's files after a reload ({})", why, e);
      return false;
    }
  }

  private void watch(ProxyConfig config) throws IOException {
    Set<Path> files = filesOf(config);
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
          switch (c) {
            case ListenerTls.Pem pem -> {
              files.add(pem.cert().toAbsolutePath());
              files.add(pem.key().toAbsolutePath());
            }
            case ListenerTls.Pkcs12 p12 -> files.add(p12.file().toAbsolutePath());
          }
        }
        if (t.clientCa() != null) {
          files.add(t.clientCa().toAbsolutePath());
        }
      }
    }
    return files;
  }

  /** Drains (see {@link ProxyRuntime#shutdown}) with the configured drain timeout. */
  public void shutdownGracefully() {
    if (watcher != null) {
      watcher.close();
    }
    Duration drain = runtime.config().drainTimeout();
    LOG.info("shutting down: draining open connections for up to {}", drain);
    runtime.shutdown(drain);
    stopped.countDown();
    LOG.info("stopped");
  }

  /** Blocks until the service has stopped. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    runtime.shutdown(Duration.ZERO);
    stopped.countDown();
  }
}
