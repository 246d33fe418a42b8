package dev.sluice.proxy.forward;

import dev.sluice.net.EventLoop;
import dev.sluice.net.LoopLocal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The open pairs of one loop, for what must reach every one of them: a reload's new settings, a
 * shutdown's drain, a dump. An intrusive list (the pair is its own node), so adding and removing
 * allocate nothing. Loop thread only.
 */
public final class PairRegistry implements AutoCloseable {
  private static final LoopLocal<PairRegistry> SLOT = new LoopLocal<>(loop -> new PairRegistry());

  private Pair head;
  private volatile int size;

  private PairRegistry() {}

  /** The registry of {@code loop}; loop thread only. */
  public static PairRegistry of(EventLoop loop) {
    return loop.local(SLOT);
  }

  void add(Pair pair) {
    pair.prev = null;
    pair.next = head;
    if (head != null) {
      head.prev = pair;
    }
    head = pair;
    size++;
  }

  void remove(Pair pair) {
    if (pair.prev != null) {
      pair.prev.next = pair.next;
    } else if (head == pair) {
      head = pair.next;
    } else {
      return; // not listed
    }
    if (pair.next != null) {
      pair.next.prev = pair.prev;
    }
    pair.prev = null;
    pair.next = null;
    size--;
  }

  /** Open pairs on this loop (any thread may read it, for a gauge). */
  public int size() {
    return size;
  }

  /** Runs {@code action} on a snapshot of the open pairs (it may close them). */
  public void forEach(Consumer<Pair> action) {
    List<Pair> snapshot = new ArrayList<>(size);
    for (Pair p = head; p != null; p = p.next) {
      snapshot.add(p);
    }
    snapshot.forEach(action);
  }

  @Override
  public void close() {
    head = null;
    size = 0;
  }
}
