package dev.sluice.internal;

import dev.sluice.memory.LeakTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The records behind {@link LeakTracker}: every live slab and handed-off chunk with the stack that
 * created it, when {@code -Dsluice.leakTracking=true}. Disabled, it costs one branch.
 */
public final class LeakRegistry {
  private static final boolean ENABLED = Boolean.getBoolean("sluice.leakTracking");
  private static final Map<Object, LeakTracker.Allocation> LIVE = new ConcurrentHashMap<>();

  private LeakRegistry() {}

  /** Whether tracking is on in this JVM. */
  public static boolean enabled() {
    return ENABLED;
  }

  public static Object track(String what) {
    if (!ENABLED) {
      return null;
    }
    Object token = new Object();
    LIVE.put(token, new LeakTracker.Allocation(what, new Throwable("created here")));
    return token;
  }

  public static void untrack(Object token) {
    if (token != null) {
      LIVE.remove(token);
    }
  }

  /** Everything still alive. */
  public static List<LeakTracker.Allocation> live() {
    return new ArrayList<>(LIVE.values());
  }

  /** Forgets everything recorded so far. */
  public static void reset() {
    LIVE.clear();
  }
}
