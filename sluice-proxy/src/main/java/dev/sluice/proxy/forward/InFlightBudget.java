package dev.sluice.proxy.forward;

import dev.sluice.net.EventLoop;
import dev.sluice.net.LoopLocal;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes the whole proxy holds in pending copies (a leg's read that its peer could not take at
 * once), bounded by {@code maxBytesInFlight}. A leg asks before each read ({@link #admit}); while
 * the bound is reached it waits, on its loop, until copies drain below it. A read already under way
 * may overshoot by its own size, so the bytes held never pass the bound plus one read per loop.
 */
public final class InFlightBudget {
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final List<Waiters> loopsWaiting = new CopyOnWriteArrayList<>();
  private final LoopLocal<Waiters> waiters = new LoopLocal<>(this::newWaiters);
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
   * Whether {@code leg} may read now. If not, it is queued on its loop and resumed once the copies
   * drain below the bound. Loop thread of the leg.
   */
  boolean admit(Leg leg) {
    if (used.get() < max) {
      return true;
    }
    Waiters queue = leg.loop().local(waiters);
    queue.add(leg);
    if (used.get() < max) {
      queue.wakeSoon(); // it drained while we queued: do not wait for a wake that came already
    }
    return false;
  }

  /** Records {@code bytes} of a new pending copy. */
  void charge(long bytes) {
    long now = used.addAndGet(bytes);
    peak.accumulateAndGet(now, Math::max);
  }

  /** Records that {@code bytes} of pending copies have drained. */
  void release(long bytes) {
    long now = used.addAndGet(-bytes);
    long bound = max;
    if (now < bound && now + bytes >= bound) {
      wakeAll();
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
      if (!leg.waitingForBudget) {
        leg.waitingForBudget = true;
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
        Leg leg = legs.poll();
        leg.waitingForBudget = false;
        leg.budgetAvailable();
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
