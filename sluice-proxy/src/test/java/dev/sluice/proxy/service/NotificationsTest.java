package dev.sluice.proxy.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The notification protocol without a socket: the messages, the address in {@code NOTIFY_SOCKET},
 * the watchdog variables, the monotonic clock.
 */
class NotificationsTest {
  private static final long PID = 4242;

  @Test
  void messagesAreKeyValueLinesWithAOneLineStatus() {
    assertThat(Notifications.ready("listening on front 127.0.0.1:7000"))
        .isEqualTo("READY=1\nSTATUS=listening on front 127.0.0.1:7000");
    assertThat(Notifications.ready("reload failed (a.yaml:3: bad)\n  b.yaml:4: worse\n"))
        .isEqualTo("READY=1\nSTATUS=reload failed (a.yaml:3: bad); b.yaml:4: worse");
    assertThat(Notifications.reloading(123_456_789L))
        .isEqualTo("RELOADING=1\nMONOTONIC_USEC=123456789\nSTATUS=reloading");
    assertThat(Notifications.stopping("draining open connections for up to 30s"))
        .isEqualTo("STOPPING=1\nSTATUS=draining open connections for up to 30s");
    assertThat(Notifications.watchdog()).isEqualTo("WATCHDOG=1");
  }

  @Test
  void aPathIsZeroTerminatedAndAnAbstractNameStartsWithAZero() {
    NotifyAddress path = NotifyAddress.parse("/run/systemd/notify");
    assertThat(path.isAbstract()).isFalse();
    assertThat(path.sunPath()).isEqualTo("/run/systemd/notify\0".getBytes(StandardCharsets.UTF_8));

    NotifyAddress name = NotifyAddress.parse("@sluice/notify");
    assertThat(name.isAbstract()).isTrue();
    assertThat(name.sunPath()).isEqualTo("\0sluice/notify".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anAddressLongerThanSunPathIsRejectedWithItsLength() {
    String longest = "/" + "p".repeat(106); // 107 bytes and the terminator: sun_path's 108
    assertThat(NotifyAddress.parse(longest).sunPath()).hasSize(108);
    assertThatThrownBy(() -> NotifyAddress.parse(longest + "p"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("it is 108 bytes long, more than a Unix socket address holds (107 bytes)");

    String longestName = "@" + "n".repeat(107); // no terminator: the zero replaces the @
    assertThat(NotifyAddress.parse(longestName).sunPath()).hasSize(108);
    assertThatThrownBy(() -> NotifyAddress.parse(longestName + "n"))
        .hasMessageContaining("109 bytes long");
  }

  @Test
  void anythingButAnAbsolutePathOrAnAbstractNameIsRejected() {
    assertThatThrownBy(() -> NotifyAddress.parse("vsock:2:1234"))
        .hasMessageContaining("only a Unix socket is supported");
    assertThatThrownBy(() -> NotifyAddress.parse("run/notify"))
        .hasMessageContaining("only a Unix socket is supported");
    assertThatThrownBy(() -> NotifyAddress.parse("")).hasMessage("it is empty");
  }

  @Test
  void withoutNotifySocketNothingIsSentAndAnUnusableOneIsIgnored() {
    assertThat(SystemdNotifier.from(Map.of(), PID).enabled()).isFalse();
    assertThat(SystemdNotifier.from(Map.of("WATCHDOG_USEC", "1000000"), PID).enabled()).isFalse();
    assertThat(SystemdNotifier.from(Map.of("NOTIFY_SOCKET", "/" + "x".repeat(200)), PID).enabled())
        .isFalse();
    SystemdNotifier abstractName = SystemdNotifier.from(Map.of("NOTIFY_SOCKET", "@n"), PID);
    assertThat(abstractName.address()).contains(NotifyAddress.parse("@n"));
  }

  @Test
  void theWatchdogIsOursWhenItsPidIsUnsetOrOurs() {
    Map<String, String> socket = Map.of("NOTIFY_SOCKET", "/run/notify");
    assertThat(SystemdNotifier.from(socket, PID).watchdogInterval()).isEmpty();
    assertThat(
            SystemdNotifier.from(with(socket, "WATCHDOG_USEC", "30000000"), PID).watchdogInterval())
        .contains(Duration.ofSeconds(30));
    Map<String, String> ours = with(with(socket, "WATCHDOG_USEC", "2500"), "WATCHDOG_PID", "4242");
    assertThat(SystemdNotifier.from(ours, PID).watchdogInterval())
        .contains(Duration.ofNanos(2_500_000));
    Map<String, String> theirs = with(with(socket, "WATCHDOG_USEC", "2500"), "WATCHDOG_PID", "1");
    assertThat(SystemdNotifier.from(theirs, PID).watchdogInterval()).isEmpty();
    assertThat(SystemdNotifier.from(with(socket, "WATCHDOG_USEC", "soon"), PID).watchdogInterval())
        .isEmpty();
    assertThat(SystemdNotifier.from(with(socket, "WATCHDOG_USEC", "0"), PID).watchdogInterval())
        .isEmpty();
  }

  @Test
  void theReloadStampIsClockMonotonicInMicroseconds() {
    // HotSpot on Linux reads CLOCK_MONOTONIC for nanoTime: the stamp falls between two readings.
    long before = System.nanoTime() / 1_000;
    long stamp = MonotonicClock.micros();
    long after = System.nanoTime() / 1_000 + 1;
    assertThat(stamp).isBetween(before, after);
  }

  private static Map<String, String> with(Map<String, String> env, String key, String value) {
    java.util.Map<String, String> copy = new java.util.HashMap<>(env);
    copy.put(key, value);
    return copy;
  }
}
