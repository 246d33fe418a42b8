package dev.sluice.memory;

import dev.sluice.internal.LeakRegistry;
import java.util.List;

/**
 * Records every live slab and handed-off chunk with the stack that created it, when enabled with
 * {@code -Dsluice.leakTracking=true} (the test suite turns it on). Disabled, it costs one branch.
 */
public final class LeakTracker {

  /** What is alive and where it was created. */
  public record Allocation(String what, Throwable createdAt) {}

  private LeakTracker() {}

  /** Whether tracking is on in this JVM. */
  public static boolean enabled() {
    return LeakRegistry.enabled();
  }

  /** Everything still alive. */
  public static List<Allocation> live() {
    return LeakRegistry.live();
  }

  /** Forgets everything recorded so far (after a failure has been reported). */
  public static void reset() {
    LeakRegistry.reset();
  }
}
