package dev.sluice.net;

import java.util.Objects;
import java.util.function.Function;

/**
 * A resource that each {@link EventLoop} keeps at most one of: created lazily by {@link
 * EventLoop#local} on the loop thread, the first time a connection on that loop asks for it, and
 * closed by the loop when it stops. Layers above the transport (TLS) keep their per-loop working
 * buffers here so that connections own none.
 *
 * <p>Identity is the key: create one {@code LoopLocal} per kind of resource (a constant).
 *
 * @param <T> the resource type
 */
public final class LoopLocal<T extends AutoCloseable> {
  private final Function<EventLoop, ? extends T> factory;

  /**
   * @param factory creates the resource for a loop; runs on that loop's thread
   */
  public LoopLocal(Function<EventLoop, ? extends T> factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  T create(EventLoop loop) {
    return Objects.requireNonNull(factory.apply(loop), "a LoopLocal factory returned null");
  }
}
