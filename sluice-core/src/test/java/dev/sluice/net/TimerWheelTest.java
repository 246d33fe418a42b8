package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The timer wheel on a fake clock: 1 ms ticks and 8 slots, so a rotation is 8 ms. */
class TimerWheelTest {
  private static final long MS = 1_000_000L;
  private static final long ORIGIN = 5_000 * MS; // any clock value; the wheel counts from here
  private static final int SLOTS = 8;

  private final TimerWheel wheel = new TimerWheel(MS, SLOTS, ORIGIN);
  private final List<String> expired = new ArrayList<>();

  @Test
  void aTimerExpiresOnceAtItsDeadlineAndNotBefore() {
    Named timer = new Named("a");
    wheel.schedule(timer, 5 * MS, at(0));
    assertThat(timer.isScheduled()).isTrue();
    assertThat(wheel.size()).isOne();

    wheel.advance(at(4));
    assertThat(expired).isEmpty();
    wheel.advance(at(5));
    assertThat(expired).containsExactly("a");
    assertThat(timer.isScheduled()).isFalse();
    assertThat(wheel.size()).isZero();

    wheel.advance(at(100));
    assertThat(expired).containsExactly("a");
  }

  @Test
  void aDeadlineBetweenTicksRoundsUp() {
    wheel.schedule(new Named("a"), 2 * MS + 1, at(0));
    wheel.advance(at(2) + MS / 2);
    assertThat(expired).isEmpty();
    wheel.advance(at(3));
    assertThat(expired).containsExactly("a");
  }

  @Test
  void aZeroDelayExpiresAtTheNextTick() {
    wheel.advance(at(3));
    wheel.schedule(new Named("a"), 0, at(3));
    wheel.advance(at(3));
    assertThat(expired).isEmpty();
    wheel.advance(at(4));
    assertThat(expired).containsExactly("a");
  }

  @Test
  void aCancelledTimerNeverExpires() {
    Named a = new Named("a");
    Named b = new Named("b");
    wheel.schedule(a, 3 * MS, at(0));
    wheel.schedule(b, 3 * MS, at(0));
    wheel.cancel(a);
    wheel.cancel(a); // idempotent
    assertThat(a.isScheduled()).isFalse();
    assertThat(wheel.size()).isOne();
    wheel.advance(at(10));
    assertThat(expired).containsExactly("b");
  }

  @Test
  void reschedulingMovesTheDeadline() {
    Named a = new Named("a");
    wheel.schedule(a, 5 * MS, at(0));
    wheel.advance(at(2));
    wheel.schedule(a, 10 * MS, at(2));
    assertThat(wheel.size()).isOne();
    wheel.advance(at(5));
    wheel.advance(at(11));
    assertThat(expired).isEmpty();
    wheel.advance(at(12));
    assertThat(expired).containsExactly("a");
  }

  @ParameterizedTest
  @ValueSource(longs = {8, 9, 20, 64, 1_000})
  void aDelayBeyondOneRotationWaitsForItsOwnRotation(long delayMs) {
    wheel.schedule(new Named("a"), delayMs * MS, at(0));
    for (long t = 1; t < delayMs; t++) {
      wheel.advance(at(t));
    }
    assertThat(expired).as("before %d ms", delayMs).isEmpty();
    wheel.advance(at(delayMs));
    assertThat(expired).containsExactly("a");
  }

  @Test
  void aJumpOfManyRotationsExpiresEverythingDueAndNothingElse() {
    wheel.schedule(new Named("soon"), 3 * MS, at(0));
    wheel.schedule(new Named("later"), 30 * MS, at(0));
    wheel.schedule(new Named("latest"), 300 * MS, at(0));
    wheel.advance(at(100));
    assertThat(expired).containsExactlyInAnyOrder("soon", "later");
    wheel.advance(at(299));
    assertThat(expired).hasSize(2);
    wheel.advance(at(300));
    assertThat(expired).containsExactlyInAnyOrder("soon", "later", "latest");
  }

  @Test
  void nanosToNextTickIsMinusOneWhenNothingIsScheduled() {
    assertThat(wheel.nanosToNextTick(at(0))).isEqualTo(-1);
    wheel.schedule(new Named("a"), 5 * MS, at(0));
    assertThat(wheel.nanosToNextTick(at(0))).isEqualTo(MS);
    assertThat(wheel.nanosToNextTick(at(0) + MS / 4)).isEqualTo(3 * MS / 4);
  }

  @Test
  void anExpiryThatCancelsADueNeighbourInItsSlotStopsIt() {
    Named victim = new Named("victim");
    Named killer = new Named("killer", w -> w.cancel(victim));
    // Same slot, same deadline; the later-scheduled timer is first in the slot's list.
    wheel.schedule(victim, 4 * MS, at(0));
    wheel.schedule(killer, 4 * MS, at(0));
    wheel.advance(at(4));
    assertThat(expired).containsExactly("killer");
    assertThat(wheel.size()).isZero();
  }

  @Test
  void anExpiryThatReschedulesItsNeighbourDoesNotHideTheRestOfTheSlot() {
    Named last = new Named("last");
    Named moved = new Named("moved");
    Named mover = new Named("mover", w -> w.schedule(moved, 2 * MS, at(4)));
    // One slot holds, in list order: mover, moved, last. Moving "moved" to another slot must not
    // make the wheel skip "last", which is due now.
    wheel.schedule(last, 4 * MS, at(0));
    wheel.schedule(moved, 4 * MS, at(0));
    wheel.schedule(mover, 4 * MS, at(0));
    wheel.advance(at(4));
    assertThat(expired).containsExactly("mover", "last");
    wheel.advance(at(6));
    assertThat(expired).containsExactly("mover", "last", "moved");
  }

  @Test
  void aZeroDelayTimerScheduledByAnExpiryFiresAtTheNextTickNotARotationLater() {
    Named follower = new Named("follower");
    Named leader = new Named("leader", w -> w.schedule(follower, 0, at(4)));
    wheel.schedule(leader, 4 * MS, at(0));
    wheel.advance(at(4));
    assertThat(expired).containsExactly("leader");
    wheel.advance(at(5));
    assertThat(expired).containsExactly("leader", "follower");
  }

  @Test
  void anExpiryThatThrowsDoesNotStopTheOthersDueWithIt() {
    Named later = new Named("later");
    wheel.schedule(later, 4 * MS, at(0));
    wheel.schedule(new Named("after"), 2 * MS, at(0));
    wheel.schedule(
        new Named(
            "failing",
            w -> {
              throw new IllegalStateException(
                  "deliberately failing expiry (expected in this test)");
            }),
        2 * MS,
        at(0));
    wheel.schedule(new Named("before"), 2 * MS, at(0));

    wheel.advance(at(2));
    assertThat(expired).containsExactlyInAnyOrder("before", "failing", "after");
    assertThat(wheel.size()).isOne();
    wheel.advance(at(4));
    assertThat(expired).endsWith("later");
  }

  @Test
  void anExpiryMayRescheduleItself() {
    int[] runs = {0};
    Named[] self = new Named[1];
    self[0] =
        new Named(
            "periodic",
            w -> {
              if (++runs[0] < 3) {
                w.schedule(self[0], 3 * MS, at(3L * runs[0]));
              }
            });
    wheel.schedule(self[0], 3 * MS, at(0));
    for (long t = 1; t <= 20; t++) {
      wheel.advance(at(t));
    }
    assertThat(expired).containsExactly("periodic", "periodic", "periodic");
  }

  /**
   * Random schedules, reschedules, cancels and clock jumps (seeded, so a failure reproduces),
   * against a model: a timer expires exactly once, at the first advance that reaches its deadline
   * tick, rounded up, and never before.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void agreesWithASimpleModel(long seed) {
    Random random = new Random(seed);
    List<Named> timers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      timers.add(new Named("t" + i));
    }
    Map<Named, Long> deadlineTick = new HashMap<>();
    long now = ORIGIN;
    long currentTick = 0;
    for (int step = 0; step < 3_000; step++) {
      Named timer = timers.get(random.nextInt(timers.size()));
      switch (random.nextInt(4)) {
        case 0, 1 -> {
          long delay = random.nextInt(4) == 0 ? random.nextLong(40 * MS) : random.nextLong(6 * MS);
          wheel.schedule(timer, delay, now);
          long dueTick = Math.ceilDiv(now + delay - ORIGIN, MS);
          deadlineTick.put(timer, Math.max(currentTick + 1, dueTick));
        }
        case 2 -> {
          wheel.cancel(timer);
          deadlineTick.remove(timer);
        }
        default -> {
          now += random.nextInt(5) == 0 ? random.nextLong(30 * MS) : random.nextLong(2 * MS);
          long target = (now - ORIGIN) / MS;
          List<String> due = new ArrayList<>();
          deadlineTick
              .entrySet()
              .removeIf(
                  e -> {
                    if (e.getValue() <= target) {
                      due.add(e.getKey().name);
                      return true;
                    }
                    return false;
                  });
          expired.clear();
          wheel.advance(now);
          currentTick = Math.max(currentTick, target);
          assertThat(expired)
              .as("expired at step %d", step)
              .containsExactlyInAnyOrderElementsOf(due);
        }
      }
      assertThat(wheel.size()).isEqualTo(deadlineTick.size());
    }
  }

  private static long at(long ms) {
    return ORIGIN + ms * MS;
  }

  /** Records its expiry, then runs an optional action on the wheel. */
  private final class Named extends TimerWheel.Timer {
    final String name;
    final Consumer<TimerWheel> onExpiry;

    Named(String name) {
      this(name, w -> {});
    }

    Named(String name, Consumer<TimerWheel> onExpiry) {
      this.name = name;
      this.onExpiry = onExpiry;
    }

    @Override
    void expire() {
      expired.add(name);
      onExpiry.accept(wheel);
    }
  }
}
