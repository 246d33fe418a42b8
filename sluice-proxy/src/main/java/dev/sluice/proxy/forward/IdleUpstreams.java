package dev.sluice.proxy.forward;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.LoopLocal;
import dev.sluice.proxy.config.ListenerHttp;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One loop's idle upstream connections, kept after an HTTP response for the next request to the
 * same upstream (a connection lives on one loop, so each loop has its own). The last one parked is
 * taken first: it is the least likely to have been closed by its upstream meanwhile. An idle one
 * holds no buffer (its reads land in the loop's slab); it is closed when its idle time runs out,
 * when its upstream ends it or sends anything unasked, when the loop stops, and when its upstream's
 * share is full. Keyed by the upstream's identity: a reload that rebuilds a cluster starts afresh,
 * and the old connections close as their idle time runs out. Loop thread only.
 */
public final class IdleUpstreams implements AutoCloseable {
  private static final LoopLocal<IdleUpstreams> SLOT =
      new LoopLocal<>(loop -> new IdleUpstreams(loop));

  private final EventLoop loop;
  private final Map<Pair.Upstream, ArrayDeque<Idle>> byUpstream = new HashMap<>();
  private volatile int size;

  private IdleUpstreams(EventLoop loop) {
    this.loop = loop;
  }

  /** The pool of {@code loop}; loop thread only. */
  static IdleUpstreams of(EventLoop loop) {
    return loop.local(SLOT);
  }

  /** Idle connections on this loop now (any thread: for gauges). */
  public int size() {
    return size;
  }

  /**
   * Keeps {@code connection}, whose last exchange with {@code upstream} is over, for reuse; false
   * when {@code upstream}'s share is full (the caller closes it).
   */
  boolean park(Pair.Upstream upstream, Connection connection, ListenerHttp.UpstreamPool settings) {
    if (!connection.isOpen()) {
      return false;
    }
    ArrayDeque<Idle> idle = byUpstream.get(upstream);
    if (idle == null) {
      idle = new ArrayDeque<>(4);
      byUpstream.put(upstream, idle);
    } else if (idle.size() >= settings.maxIdlePerUpstream()) {
      return false;
    }
    Idle entry = new Idle(upstream, connection);
    idle.addLast(entry);
    size++;
    upstream.parked();
    connection.switchHandler(entry);
    entry.timer = loop.schedule(settings.idle(), entry);
    connection.resumeReading(); // to see its upstream close it
    return true;
  }

  /** An open idle connection to {@code upstream}, now the caller's, or null. */
  Connection take(Pair.Upstream upstream) {
    ArrayDeque<Idle> idle = byUpstream.get(upstream);
    while (idle != null && !idle.isEmpty()) {
      Idle entry = idle.pollLast();
      entry.leave(false);
      if (idle.isEmpty()) {
        byUpstream.remove(upstream);
      }
      if (entry.connection.isOpen()) {
        upstream.unparked(true);
        // Still reading: its new handler takes it over at once, before any read is dispatched,
        // and pausing and resuming would be two interest changes per request for nothing.
        return entry.connection;
      }
      upstream.unparked(false);
    }
    return null;
  }

  /** The loop stops: every idle connection closes. */
  @Override
  public void close() {
    java.util.List<Idle> all = new java.util.ArrayList<>(size);
    byUpstream.values().forEach(all::addAll);
    for (Idle entry : all) {
      entry.connection.close(); // its onClose takes it out
    }
  }

  private void remove(Idle entry) {
    ArrayDeque<Idle> idle = byUpstream.get(entry.upstream);
    if (idle != null && idle.remove(entry)) {
      if (idle.isEmpty()) {
        byUpstream.remove(entry.upstream);
      }
    }
  }

  /** The handler of one idle connection, and its idle timer. */
  private final class Idle implements ConnectionHandler, Runnable {
    final Pair.Upstream upstream;
    final Connection connection;
    EventLoop.Timeout timer;

    /** Still in the pool (neither taken nor closed). */
    boolean kept = true;

    Idle(Pair.Upstream upstream, Connection connection) {
      this.upstream = upstream;
      this.connection = connection;
    }

    /** It leaves the pool: taken ({@code closed} false) or closed. */
    void leave(boolean closed) {
      if (!kept) {
        return;
      }
      kept = false;
      size--;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
      if (closed) {
        remove(this);
        upstream.unparked(false);
      }
    }

    @Override
    public void onRead(Connection c, BorrowedBytes bytes) {
      // Nothing was asked: a late byte, a 408 sent before closing. Never hand it to a request.
      leave(true);
      c.reset();
    }

    @Override
    public void onEndOfInput(Connection c) {
      leave(true);
      c.close();
    }

    @Override
    public void onClose(Connection c, CloseReason reason) {
      leave(true);
    }

    /** Its idle time ran out. */
    @Override
    public void run() {
      timer = null;
      leave(true);
      connection.close();
    }
  }
}
