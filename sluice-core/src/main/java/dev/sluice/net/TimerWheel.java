package dev.sluice.net;

/**
 * A hashed timing wheel for idle and connect timeouts: O(1) to schedule and cancel, intrusive (a
 * timer is its own list node, so scheduling allocates nothing). Loop thread only.
 */
final class TimerWheel {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  /** A schedulable timer; subclasses say what happens when it expires. */
  abstract static class Timer {
    private Timer prev;
    private Timer next;
    private long deadlineTick;
    private boolean scheduled;
    private Timer nextDue;
    private boolean expiring;

    abstract void expire();

    boolean isScheduled() {
      return scheduled;
    }
  }

  private final Timer[] slots;
  private final int mask;
  private final long tickNanos;
  private final long originNanos;
  private long currentTick;
  private int size;

  TimerWheel(long tickNanos, int slotCount, long nowNanos) {
    if (Integer.bitCount(slotCount) != 1) {
      throw new IllegalArgumentException("slotCount must be a power of two");
    }
    this.slots = new Timer[slotCount];
    this.mask = slotCount - 1;
    this.tickNanos = tickNanos;
    this.originNanos = nowNanos;
  }

  /** Schedules (or reschedules) {@code timer} to expire {@code delayNanos} after {@code now}. */
  void schedule(Timer timer, long delayNanos, long nowNanos) {
    cancel(timer);
    long due = nowNanos + Math.max(0, delayNanos) - originNanos;
    long tick = Math.max(currentTick + 1, (due + tickNanos - 1) / tickNanos);
    timer.deadlineTick = tick;
    int slot = (int) (tick & mask);
    timer.prev = null;
    timer.next = slots[slot];
    if (timer.next != null) {
      timer.next.prev = timer;
    }
    slots[slot] = timer;
    timer.scheduled = true;
    size++;
  }

  void cancel(Timer timer) {
    timer.expiring = false; // due in the batch being expired, it no longer fires
    if (!timer.scheduled) {
      return;
    }
    int slot = (int) (timer.deadlineTick & mask);
    if (timer.prev != null) {
      timer.prev.next = timer.next;
    } else {
      slots[slot] = timer.next;
    }
    if (timer.next != null) {
      timer.next.prev = timer.prev;
    }
    timer.prev = null;
    timer.next = null;
    timer.scheduled = false;
    size--;
  }

  /** Expires every timer due at {@code now}. */
  void advance(long nowNanos) {
    long target = (nowNanos - originNanos) / tickNanos;
    long from = currentTick;
    if (target <= from) {
      return;
    }
    // The cursor moves first: a timer that an expiry schedules lands after it, in a slot that a
    // later advance visits, never in one this advance has already passed.
    currentTick = target;
    if (size == 0) {
      return;
    }
    int visit = (int) Math.min(target - from, slots.length);
    for (int i = 1; i <= visit; i++) {
      expireDue((int) ((from + i) & mask), target);
    }
  }

  /**
   * Takes the due timers out of {@code slot}, then expires them in list order. An expiry may cancel
   * or reschedule any timer, so the slot's list is never walked while expiries run.
   */
  private void expireDue(int slot, long target) {
    Timer first = null;
    Timer last = null;
    for (Timer timer = slots[slot]; timer != null; ) {
      Timer next = timer.next;
      if (timer.deadlineTick <= target) {
        cancel(timer);
        timer.expiring = true;
        if (last == null) {
          first = timer;
        } else {
          last.nextDue = timer;
        }
        last = timer;
      }
      timer = next;
    }
    while (first != null) {
      Timer timer = first;
      first = timer.nextDue;
      timer.nextDue = null;
      if (timer.expiring) {
        timer.expiring = false;
        expire(timer);
      }
    }
  }

  /**
   * Runs one expiry. One that throws must not stop the rest of its batch (already taken out of the
   * wheel, they would never fire) nor the event loop that advances the wheel.
   */
  private static void expire(Timer timer) {
    try {
      timer.expire();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "timer " + timer + " failed", e);
    }
  }

  /** Nanoseconds until the next tick when any timer is pending, else -1 (sleep until woken). */
  long nanosToNextTick(long nowNanos) {
    if (size == 0) {
      return -1;
    }
    long next = originNanos + (currentTick + 1) * tickNanos;
    return Math.max(0, next - nowNanos);
  }

  int size() {
    return size;
  }
}
