package dev.sluice.proxy.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.NotifyReceiver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog over a real datagram socket: it says WATCHDOG=1 while the loops are alive, and
 * nothing while one is stuck; a notifier whose socket is gone goes on.
 */
class WatchdogTest {
  @TempDir Path dir;

  @Test
  void aBeatIsSentOnlyWhileNoLoopIsStuck() throws Exception {
    try (NotifyReceiver manager = NotifyReceiver.bind(dir.resolve("notify"))) {
      SystemdNotifier notifier =
          SystemdNotifier.from(Map.of("NOTIFY_SOCKET", manager.address()), 1);
      AtomicReference<List<String>> stuck = new AtomicReference<>(List.of());
      try (Watchdog watchdog = new Watchdog(notifier, stuck::get)) {
        assertThat(watchdog.beat()).isTrue();
        assertThat(manager.next()).isEqualTo("WATCHDOG=1");

        stuck.set(List.of("loop sluice-loop-0 has not answered for 6s"));
        assertThat(watchdog.beat()).isFalse();
        notifier.send("STATUS=marker");
        assertThat(manager.next())
            .as("nothing between the beat and the marker")
            .isEqualTo("STATUS=marker");

        stuck.set(List.of());
        assertThat(watchdog.beat()).isTrue();
        assertThat(manager.next()).isEqualTo("WATCHDOG=1");
      }
    }
  }

  @Test
  void aJudgementThatThrowsSkipsOneBeatAndTheScheduleGoesOn() throws Exception {
    try (NotifyReceiver manager = NotifyReceiver.bind(dir.resolve("notify"))) {
      SystemdNotifier notifier =
          SystemdNotifier.from(Map.of("NOTIFY_SOCKET", manager.address()), 1);
      java.util.concurrent.atomic.AtomicInteger calls =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.function.Supplier<List<String>> judge =
          () -> {
            if (calls.incrementAndGet() == 2) { // the first scheduled beat
              throw new IllegalStateException("the status reader failed");
            }
            return List.of();
          };
      try (Watchdog watchdog = Watchdog.start(notifier, java.time.Duration.ofMillis(100), judge)) {
        assertThat(manager.next()).isEqualTo("WATCHDOG=1"); // the beat at start
        assertThat(manager.next()).as("a beat after the one that threw").isEqualTo("WATCHDOG=1");
        assertThat(calls.get()).isGreaterThanOrEqualTo(3);
        assertThat(watchdog.beat()).as("and it still judges on demand").isTrue();
      }
    }
  }

  @Test
  void anAbstractNameReceivesAndAMissingSocketIsNotFatal() throws Exception {
    String name = "sluice-watchdog-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    try (NotifyReceiver manager = NotifyReceiver.bindAbstract(name)) {
      SystemdNotifier notifier = SystemdNotifier.from(Map.of("NOTIFY_SOCKET", "@" + name), 1);
      notifier.ready("listening");
      assertThat(manager.next()).isEqualTo("READY=1\nSTATUS=listening");
    }
    SystemdNotifier gone =
        SystemdNotifier.from(Map.of("NOTIFY_SOCKET", dir.resolve("absent").toString()), 1);
    gone.ready("listening");
    gone.watchdog(); // no exception: logged once, the proxy goes on
  }
}
