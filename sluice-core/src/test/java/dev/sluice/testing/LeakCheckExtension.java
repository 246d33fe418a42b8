package dev.sluice.testing;

import dev.sluice.memory.LeakTracker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails any test that ends with a live read slab, handed-off chunk or native descriptor (the epoll
 * transport's sockets, epoll and eventfd), or with more sockets, pipes or epoll/eventfd descriptors
 * open in the process ({@code /proc/self/fd}) than it started with: every event loop group must be
 * closed and every {@link dev.sluice.memory.SlabChunk} released by the end of the test. Registered
 * for the whole module through {@code META-INF/services} and JUnit's extension autodetection; needs
 * {@code -Dsluice.leakTracking=true}, which the build sets.
 */
public final class LeakCheckExtension implements BeforeEachCallback, AfterEachCallback {
  private static final Path FDS = Path.of("/proc/self/fd");
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(LeakCheckExtension.class);
  private static final long FD_GRACE_MILLIS = 2000;

  /**
   * Whether descriptors are counted too ({@code -Dsluice.leakCheck.descriptors=true}, as the core
   * module's build sets): modules whose tests use the JDK's HttpClient leave its selector and
   * pooled connections open for a while, which is the JDK's, not a leak of the code under test (the
   * epoll transport's descriptors are tracked by name everywhere).
   */
  private static final boolean COUNT_DESCRIPTORS =
      Boolean.getBoolean("sluice.leakCheck.descriptors");

  @Override
  public void beforeEach(ExtensionContext context) {
    if (COUNT_DESCRIPTORS) {
      context.getStore(NS).put("fds", kernelObjects());
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    checkTracked(context);
    @SuppressWarnings("unchecked") // put by beforeEach, just above
    Map<Integer, String> before = (Map<Integer, String>) context.getStore(NS).get("fds");
    if (before != null) {
      checkDescriptors(context, before);
    }
  }

  private static void checkTracked(ExtensionContext context) {
    List<LeakTracker.Allocation> live = LeakTracker.live();
    if (live.isEmpty()) {
      return;
    }
    // Forget them so that one leak is reported once, not by every later test.
    LeakTracker.reset();
    AssertionError error =
        new AssertionError(
            context.getDisplayName()
                + " left "
                + live.size()
                + " slab(s), chunk(s) or descriptor(s) live: "
                + live.stream().map(LeakTracker.Allocation::what).collect(Collectors.joining(", "))
                + " (close every EventLoopGroup and release every SlabChunk); the first was"
                + " created where the cause shows");
    error.initCause(live.getFirst().createdAt());
    throw error;
  }

  /**
   * Waits (a peer process or a closing thread may take a moment) for the sockets, pipes and
   * epoll/eventfd descriptors the test opened to be closed; regular files are left alone (the JDK
   * opens jars and caches lazily).
   */
  private static void checkDescriptors(ExtensionContext context, Map<Integer, String> before) {
    long deadline = System.currentTimeMillis() + FD_GRACE_MILLIS;
    Map<Integer, String> added;
    while (true) {
      added = kernelObjects();
      added.entrySet().removeIf(e -> e.getValue().equals(before.get(e.getKey())));
      // The JVM and the C library open pathless Unix sockets of their own at times of their
      // choosing (to system daemons); the epoll transport's own are tracked above.
      added.entrySet().removeIf(e -> socketState(e.getValue()).matches(" \\(unix: [^)]* \\d+\\)"));
      if (added.isEmpty() || System.currentTimeMillis() > deadline) {
        break;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (!added.isEmpty()) {
      throw new AssertionError(
          context.getDisplayName()
              + " left "
              + added.size()
              + " descriptor(s) open: "
              + added.entrySet().stream()
                  .map(e -> e.getKey() + " -> " + e.getValue() + socketState(e.getValue()))
                  .collect(Collectors.joining(", ")));
    }
  }

  /** The kernel's line for a socket inode (its addresses and state), to tell whose it is. */
  private static String socketState(String target) {
    if (!target.startsWith("socket:[")) {
      return "";
    }
    String inode = target.substring("socket:[".length(), target.length() - 1);
    for (String table : List.of("tcp", "tcp6", "unix")) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/net", table))) {
          if (List.of(line.trim().split("\\s+")).contains(inode)) {
            return " (" + table + ": " + line.trim() + ")";
          }
        }
      } catch (IOException e) {
        // no such table here
      }
    }
    return "";
  }

  /** The process's open sockets, pipes and anonymous inodes, by descriptor. */
  static Map<Integer, String> kernelObjects() {
    Map<Integer, String> open = new TreeMap<>();
    if (!Files.isDirectory(FDS)) {
      return open;
    }
    try (Stream<Path> fds = Files.list(FDS)) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:")
              || target.startsWith("pipe:")
              || target.startsWith("anon_inode:")) {
            open.put(Integer.parseInt(fd.getFileName().toString()), target);
          }
        } catch (IOException | NumberFormatException gone) {
          // closed while listed (the listing's own descriptor among them)
        }
      }
    } catch (IOException e) {
      throw new AssertionError("cannot list " + FDS, e);
    }
    return open;
  }
}
