package dev.sluice.internal;

import dev.sluice.net.EventLoop;
import java.util.Objects;

/**
 * How layers above the transport in this module (TLS) reach an event loop's internals without the
 * loop's public API naming them: the loop installs an accessor when its class initialises.
 */
public final class LoopInternals {

  /** What the loop lends its layers. */
  public interface Access {
    MemoryCounters counters(EventLoop loop);

    Lenders lenders(EventLoop loop);
  }

  private static volatile Access access;

  private LoopInternals() {}

  /** Called once, by {@link EventLoop}'s static initialiser. */
  public static void install(Access loopAccess) {
    access = Objects.requireNonNull(loopAccess);
  }

  /** The memory counters of {@code loop}, which TLS adds its own buffers to. */
  public static MemoryCounters counters(EventLoop loop) {
    return access.counters(loop);
  }

  /** The read slabs {@code loop} lends reads from, which TLS adds its plaintext slab to. */
  public static Lenders lenders(EventLoop loop) {
    return access.lenders(loop);
  }
}
