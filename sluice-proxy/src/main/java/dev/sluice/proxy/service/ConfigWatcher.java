package dev.sluice.proxy.service;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Watches the configuration file and the files it names (certificates, keys, CAs) and calls back,
 * once per burst of changes, after {@code debounce} of quiet: editors and certificate renewers
 * write several times in a row, and a half-written file must not be read.
 */
public final class ConfigWatcher implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ConfigWatcher.class);

  private final WatchService service;
  private final Set<Path> files;
  private final Duration debounce;
  private final Runnable onChange;
  private final Thread thread;

  private ConfigWatcher(Set<Path> files, Duration debounce, Runnable onChange) throws IOException {
    this.service = FileSystems.getDefault().newWatchService();
    this.files = Set.copyOf(files);
    this.debounce = debounce;
    this.onChange = onChange;
    Set<Path> dirs = new HashSet<>();
    for (Path file : this.files) {
      dirs.add(file.toAbsolutePath().getParent());
    }
    for (Path dir : dirs) {
      dir.register(
          service,
          StandardWatchEventKinds.ENTRY_CREATE,
          StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_DELETE);
    }
    this.thread = Thread.ofPlatform().name("sluice-config-watch").daemon(true).unstarted(this::run);
  }

  /**
   * Starts watching {@code files} (absolute paths): their directories are watched, and events for
   * other files there are ignored, never delaying the callback.
   */
  public static ConfigWatcher start(Set<Path> files, Duration debounce, Runnable onChange)
      throws IOException {
    ConfigWatcher watcher = new ConfigWatcher(files, debounce, onChange);
    watcher.thread.start();
    return watcher;
  }

  private void run() {
    try {
      while (true) {
        if (!drain(service.take())) {
          continue; // another file in a watched directory (an access log, say)
        }
        // Wait for the burst to end: only a further change of a watched file restarts the quiet
        // period, else steady writes next to the configuration would put the reload off forever.
        long quietSince = System.nanoTime();
        while (true) {
          long left = debounce.toNanos() - (System.nanoTime() - quietSince);
          if (left <= 0) {
            break;
          }
          WatchKey more = service.poll(left, TimeUnit.NANOSECONDS);
          if (more != null && drain(more)) {
            quietSince = System.nanoTime();
          }
        }
        try {
          onChange.run();
        } catch (RuntimeException e) {
          LOG.warn("reload after a file change failed", e);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException stopped) {
      // closed
    }
  }

  private boolean drain(WatchKey key) {
    boolean relevant = false;
    Path dir = (Path) key.watchable();
    for (WatchEvent<?> event : key.pollEvents()) {
      if (event.context() instanceof Path name
          && files.contains(dir.resolve(name).toAbsolutePath())) {
        relevant = true;
      } else if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
        relevant = true;
      }
    }
    key.reset();
    return relevant;
  }

  @Override
  public void close() {
    try {
      service.close();
    } catch (IOException e) {
      LOG.debug("closing the watch service", e);
    }
  }
}
