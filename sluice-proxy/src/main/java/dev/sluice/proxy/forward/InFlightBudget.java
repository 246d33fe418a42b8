package dev.sluice.proxy.forward;

import dev.sluice.net.ByteAccount;
import dev.sluice.net.EventLoop;
import dev.sluice.net.LoopLocal;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes the whole proxy holds in pending copies (a leg's read that its peer could not take at
 * once), bounded by {@code maxBytesInFlight}. A leg asks before each read ({@link Share#admit});
 * while the bound is reached it waits, on its loop, until copies drain below it. A read already
 * under way may overshoot by its own size, so the bytes held never pass the bound plus one read per
 * loop.
 *
 * <p>So that a few peers that stop reading cannot starve everyone else of it, no one holds much: a
 * pair's reads are clipped to {@link #pairReadLimit} (a pair then holds at most 1/16 of the bound),
 * and while several listeners share the budget each holds at most half of it through its {@link
 * Share}. Peers that drain nothing are cut by the write-stall timeout, which gives back what they
 * held.
 */
public final class InFlightBudget {
  /** A pair holds at most this part of the bound: one read each way, each at most half of it. */
  private static final int PAIR_FRACTION = 16;

  /** Reads are never clipped below this, however small the bound. */
  private static final int MIN_PAIR_READ = 1024;

  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final List<Waiters> loopsWaiting = new CopyOnWriteArrayList<>();
  private final LoopLocal<Waiters> waiters = new LoopLocal<>(this::newWaiters);
  private final Map<String, Share> shares = new ConcurrentHashMap<>();
  private volatile long max;

  public InFlightBudget(long maxBytesInFlight) {
    this.max = maxBytesInFlight;
  }

  /** The bound. */
  public long max() {
    return max;
  }

  /** Changes the bound (a reload); legs waiting for room get it if there is some now. */
  public void setMax(long maxBytesInFlight) {
    this.max = maxBytesInFlight;
    if (used.get() < maxBytesInFlight) {
      wakeAll();
    }
  }

  /** Bytes held in pending copies now. */
  public long used() {
    return used.get();
  }

  /** The most bytes held at once since start (or since {@link #resetPeak}). */
  public long peak() {
    return peak.get();
  }

  /** Forgets the peak (tests and benchmarks measure from a point). */
  public void resetPeak() {
    peak.set(used.get());
  }

  /**
   * The most a pair's leg reads at once: {@code readSize}, clipped so that the pair's two legs
   * together hold at most 1/16 of the bound.
   */
  public int pairReadLimit(int readSize) {
    long clip = Math.max(MIN_PAIR_READ, max / (2 * PAIR_FRACTION));
    return (int) Math.min(readSize, clip);
  }

  /** The part of the budget the listener of that name draws on (made at its first use). */
  public Share share(String listener) {
    return shares.computeIfAbsent(listener, Share::new);
  }

  /**
   * The listeners now configured: the shares of the others are dropped (their pairs go on drawing
   * on them) and the rest may each hold more if fewer now share the budget.
   */
  public void keepShares(Set<String> listeners) {
    if (shares.keySet().retainAll(listeners)) {
      wakeAll();
    }
  }

  private boolean hasRoom() {
    return used.get() < max;
  }

  /** Records {@code bytes} of a new pending copy. */
  private void charge(long bytes) {
    long now = used.addAndGet(bytes);
    peak.accumulateAndGet(now, Math::max);
  }

  /** Records that {@code bytes} of pending copies have drained. */
  private void release(long bytes) {
    long now = used.addAndGet(-bytes);
    long bound = max;
    if (now < bound && now + bytes >= bound) {
      wakeAll();
    }
  }

  /**
   * One listener's draw on the budget: what its pairs hold, which is at most half of the bound
   * while other listeners share it. Its first stages (a ClientHello being read, a PROXY protocol
   * header, the TLS port's first bytes) charge what they hold to it too, as a {@link ByteAccount}:
   * legs then wait for room while first stages hold much of it.
   */
  public final class Share implements ByteAccount {
    private final String listener;
    private final AtomicLong held = new AtomicLong();

    private Share(String listener) {
      this.listener = listener;
    }

    /** Bytes this listener's pairs hold in pending copies now. */
    public long used() {
      return held.get();
    }

    /** The most this listener's pairs may hold now. */
    public long limit() {
      long bound = max;
      return shares.size() > 1 ? bound / 2 : bound;
    }

    /** The most one of these pairs' legs reads at once, for a read size of {@code readSize}. */
    public int pairReadLimit(int readSize) {
      return InFlightBudget.this.pairReadLimit(readSize);
    }

    private boolean hasRoom() {
      return held.get() < limit() && InFlightBudget.this.hasRoom();
    }

    /**
     * Whether {@code leg} may read now. If not, it is queued on its loop and resumed once the
     * copies drain below the bound (and below this share's). Loop thread of the leg.
     */
    boolean admit(Leg leg) {
      if (hasRoom()) {
        return true;
      }
      Waiters queue = leg.loop().local(waiters);
      queue.add(leg);
      if (hasRoom()) {
        queue.wakeSoon(); // it drained while we queued: do not wait for a wake that came already
      }
      return false;
    }

    /** Records {@code bytes} of a new pending copy (or first-stage hold) of this listener's. */
    @Override
    public void charge(long bytes) {
      held.addAndGet(bytes);
      InFlightBudget.this.charge(bytes);
    }

    /** Records that {@code bytes} of this listener's pending copies (or holds) have gone. */
    @Override
    public void release(long bytes) {
      long now = held.addAndGet(-bytes);
      InFlightBudget.this.release(bytes);
      long limit = limit();
      if (now < limit && now + bytes >= limit) {
        wakeAll();
      }
    }

    @Override
    public String toString() {
      return "Share[" + listener + " " + held.get() + " of " + limit() + " B]";
    }
  }

  private void wakeAll() {
    for (Waiters queue : loopsWaiting) {
      if (queue.hasWaiters()) {
        queue.wakeSoon();
      }
    }
  }

  private Waiters newWaiters(EventLoop loop) {
    Waiters queue = new Waiters(loop);
    loopsWaiting.add(queue);
    return queue;
  }

  /** The legs of one loop waiting for room, in arrival order. */
  private final class Waiters implements AutoCloseable {
    private final EventLoop loop;
    private final ArrayDeque<Leg> legs = new ArrayDeque<>();
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    private final Runnable wake = this::wake;
    private volatile boolean nonEmpty;

    Waiters(EventLoop loop) {
      this.loop = loop;
    }

    void add(Leg leg) {
      if (leg.waitForBudget()) {
        legs.add(leg);
        nonEmpty = true;
      }
    }

    boolean hasWaiters() {
      return nonEmpty;
    }

    void wakeSoon() {
      if (wakeQueued.compareAndSet(false, true)) {
        loop.submit(wake, () -> {});
      }
    }

    private void wake() {
      wakeQueued.set(false);
      int n = legs.size();
      for (int i = 0; i < n && used.get() < max; i++) {
        legs.poll().budgetAvailable();
      }
      nonEmpty = !legs.isEmpty();
    }

    @Override
    public void close() {
      legs.clear();
      loopsWaiting.remove(this);
    }
  }
}
