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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches the configuration file and the files it names (certificates, keys, CAs) and calls back,
 * once per burst of changes, after {@code debounce} of quiet, when what one of them holds changed:
 * editors and certificate renewers write several times in a row, and a half-written file must not
 * be read. Each file is watched through its symlinks (see {@link LinkChain}), as a Kubernetes
 * ConfigMap or Secret volume needs, and "changed" means its bytes differ, not that a name moved.
 */
public final class ConfigWatcher implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ConfigWatcher.class);

  private final WatchService service;
  private final Set<Path> files;
  private final Duration debounce;
  private final Runnable onChange;
  private final Thread thread;
  private final AtomicLong checks = new AtomicLong();
  // The watcher thread's alone once it runs.
  private final Map<Path, WatchKey> keys = new HashMap<>();
  private List<LinkChain> chains = List.of();
  private Map<Path, FileContent> contents;

  private ConfigWatcher(Set<Path> files, Duration debounce, Runnable onChange) throws IOException {
    this.service = FileSystems.getDefault().newWatchService();
    this.files = Set.copyOf(files);
    this.debounce = debounce;
    this.onChange = onChange;
    try {
      follow(true);
    } catch (IOException | RuntimeException e) {
      service.close();
      throw e;
    }
    this.contents = read();
    this.thread = Thread.ofPlatform().name("sluice-config-watch").daemon(true).unstarted(this::run);
  }

  /**
   * Starts watching {@code files} (absolute paths): the directories of their links and targets are
   * watched, and events for other files there are ignored, never delaying the callback.
   */
  public static ConfigWatcher start(Set<Path> files, Duration debounce, Runnable onChange)
      throws IOException {
    ConfigWatcher watcher = new ConfigWatcher(files, debounce, onChange);
    watcher.thread.start();
    return watcher;
  }

  /** Bursts of changes examined so far, whether they changed a file or not. */
  long checks() {
    return checks.get();
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
        examine();
      }
    } catch (InterruptedException | ClosedWatchServiceException stopped) {
      // closed
    }
  }

  /** Follows the links again (a swap moves the targets), then compares what the files hold. */
  private void examine() {
    try {
      follow(false);
    } catch (IOException e) {
      LOG.warn("watching the configuration's files again after a change", e);
    }
    Map<Path, FileContent> now = read(); // after watching the new places: no change slips between
    boolean changed = !now.equals(contents);
    contents = now;
    if (changed) {
      try {
        onChange.run();
      } catch (RuntimeException e) {
        LOG.warn("reload after a file change failed", e);
      }
    }
    checks.incrementAndGet();
  }

  /**
   * Resolves every file's links and watches the directories they and the targets are in, dropping
   * those no longer on any chain. At start a directory that cannot be watched is an error; later it
   * is one that vanished between resolving and watching, and that change brings another event.
   */
  private void follow(boolean atStart) throws IOException {
    List<LinkChain> next = files.stream().map(LinkChain::of).toList();
    Set<Path> dirs = new HashSet<>();
    next.forEach(chain -> dirs.addAll(chain.directories()));
    for (Path dir : dirs) {
      WatchKey key = keys.get(dir);
      if (key != null && key.isValid()) {
        continue;
      }
      try {
        keys.put(
            dir,
            dir.register(
                service,
                StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE));
      } catch (IOException e) {
        if (atStart) {
          throw e;
        }
        keys.remove(dir);
        LOG.debug("cannot watch {} (gone in a swap?)", dir, e);
      }
    }
    keys.entrySet()
        .removeIf(
            e -> {
              if (dirs.contains(e.getKey())) {
                return false;
              }
              e.getValue().cancel();
              return true;
            });
    chains = next;
  }

  private Map<Path, FileContent> read() {
    Map<Path, FileContent> now = new LinkedHashMap<>();
    for (Path file : files) {
      now.put(file, FileContent.of(file));
    }
    return now;
  }

  /** Whether {@code key}'s events touch an entry of a watched file's chain. */
  private boolean drain(WatchKey key) {
    boolean relevant = false;
    Path dir = (Path) key.watchable();
    for (WatchEvent<?> event : key.pollEvents()) {
      if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
        relevant = true;
      } else if (event.context() instanceof Path name) {
        for (LinkChain chain : chains) {
          relevant |= chain.contains(dir, name);
        }
      }
    }
    if (!key.reset()) {
      keys.remove(dir, key); // the directory is gone (an old volume directory, deleted)
    }
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
