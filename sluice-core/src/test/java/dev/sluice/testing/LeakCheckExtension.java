package dev.sluice.testing;

import dev.sluice.memory.LeakTracker;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails any test that ends with a live read slab or handed-off chunk: every event loop group must
 * be closed and every {@link dev.sluice.memory.SlabChunk} released by the end of the test.
 * Registered for the whole module through {@code META-INF/services} and JUnit's extension
 * autodetection; needs {@code -Dsluice.leakTracking=true}, which the build sets.
 */
public final class LeakCheckExtension implements AfterEachCallback {

  @Override
  public void afterEach(ExtensionContext context) {
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
                + " slab(s) or chunk(s) live: "
                + live.stream().map(LeakTracker.Allocation::what).collect(Collectors.joining(", "))
                + " (close every EventLoopGroup and release every SlabChunk); the first was"
                + " created where the cause shows");
    error.initCause(live.getFirst().createdAt());
    throw error;
  }
}
