package dev.sluice.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records every live slab and handed-off chunk with the stack that created it, when enabled with
 * {@code -Dsluice.leakTracking=true} (the test suite turns it on). Disabled, it costs one branch.
 */
public final class LeakTracker {
  private static final boolean ENABLED = Boolean.getBoolean("sluice.leakTracking");
  private static final Map<Object, Allocation> LIVE = new ConcurrentHashMap<>();

  /** What is alive and where it was created. */
  public record Allocation(String what, Throwable createdAt) {}

  private LeakTracker() {}

  /** Whether tracking is on in this JVM. */
  public static boolean enabled() {
    return ENABLED;
  }

  static Object trackSlab(Slab slab) {
    return track("slab of " + slab.size() + " B");
  }

  static Object trackHandOff(SlabChunk chunk) {
    return track("handed-off " + chunk);
  }

  private static Object track(String what) {
    if (!ENABLED) {
      return null;
    }
    Object token = new Object();
    LIVE.put(token, new Allocation(what, new Throwable("created here")));
    return token;
  }

  static void untrack(Object token) {
    if (token != null) {
      LIVE.remove(token);
    }
  }

  /** Everything still alive. */
  public static List<Allocation> live() {
    return new ArrayList<>(LIVE.values());
  }

  /** Forgets everything recorded so far (after a failure has been reported). */
  public static void reset() {
    LIVE.clear();
  }
}
