package dev.sluice.proxy.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells the service manager how the proxy is doing ({@code Type=notify} units): a datagram to the
 * Unix socket that {@code $NOTIFY_SOCKET} names, and nothing at all when it is unset. Never fatal:
 * a message that cannot be sent is logged once (with the first reason) and the proxy goes on, as a
 * manager that stopped listening would not want a proxy to stop serving.
 */
public final class SystemdNotifier {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SystemdNotifier.class);

  /** Sends nothing (no service manager, or one that is not to be told). */
  public static final SystemdNotifier NONE = new SystemdNotifier(null, null);

  private final NotifyAddress address;
  private final Duration watchdog;
  private final AtomicBoolean warned = new AtomicBoolean();

  private SystemdNotifier(NotifyAddress address, Duration watchdog) {
    this.address = address;
    this.watchdog = watchdog;
  }

  /** From this process's environment. */
  public static SystemdNotifier fromEnvironment() {
    return from(System.getenv(), ProcessHandle.current().pid());
  }

  /**
   * From {@code env} for process {@code pid}: {@code NOTIFY_SOCKET} (where to send), {@code
   * WATCHDOG_USEC} and {@code WATCHDOG_PID} (whether and how often the manager wants to hear that
   * this process is alive: when the PID is set, only that process is asked). A value that cannot be
   * used is logged and ignored.
   */
  static SystemdNotifier from(Map<String, String> env, long pid) {
    String socket = env.get("NOTIFY_SOCKET");
    if (socket == null) {
      return NONE;
    }
    NotifyAddress address;
    try {
      address = NotifyAddress.parse(socket);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "NOTIFY_SOCKET={} cannot be used ({}): the service manager will not hear that the proxy"
              + " is ready, reloading or stopping",
          socket,
          e.getMessage());
      return NONE;
    }
    return new SystemdNotifier(address, watchdogInterval(env, pid));
  }

  private static Duration watchdogInterval(Map<String, String> env, long pid) {
    String usec = env.get("WATCHDOG_USEC");
    if (usec == null) {
      return null;
    }
    String forPid = env.get("WATCHDOG_PID");
    if (forPid != null && !forPid.strip().equals(Long.toString(pid))) {
      return null; // the watchdog is another process's (a wrapper's): it is not ours to reset
    }
    try {
      long micros = Long.parseLong(usec.strip());
      if (micros > 0) {
        return Duration.ofNanos(Math.multiplyExact(micros, 1_000L));
      }
    } catch (NumberFormatException | ArithmeticException e) {
      // logged below
    }
    LOG.warn("WATCHDOG_USEC={} is not a positive number of microseconds: no watchdog", usec);
    return null;
  }

  /** Whether messages go anywhere. */
  public boolean enabled() {
    return address != null;
  }

  /** Where messages go, if anywhere. */
  public Optional<NotifyAddress> address() {
    return Optional.ofNullable(address);
  }

  /**
   * How often the manager must hear {@link #watchdog()} before it takes the process for hung
   * ({@code WatchdogSec=}), if it asks.
   */
  public Optional<Duration> watchdogInterval() {
    return Optional.ofNullable(watchdog);
  }

  /** {@code READY=1}: started (or reloaded, failed or not) and serving as {@code status} says. */
  public void ready(String status) {
    send(Notifications.ready(status));
  }

  /** {@code RELOADING=1}, stamped with {@code CLOCK_MONOTONIC}. */
  public void reloading() {
    if (enabled()) {
      send(Notifications.reloading(MonotonicClock.micros()));
    }
  }

  /** {@code STOPPING=1}: the drain begins. */
  public void stopping(String status) {
    send(Notifications.stopping(status));
  }

  /** {@code WATCHDOG=1}. */
  public void watchdog() {
    send(Notifications.watchdog());
  }

  /** Sends {@code message}; a failure is logged the first time only. */
  void send(String message) {
    if (address == null) {
      return;
    }
    try {
      UnixDatagram.send(address, message.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      if (warned.compareAndSet(false, true)) {
        LOG.warn(
            "cannot notify the service manager at NOTIFY_SOCKET={} ({}); the proxy goes on, and"
                + " later failures are not logged",
            address,
            e.getMessage());
      } else {
        LOG.debug("cannot notify the service manager: {}", e.getMessage());
      }
    }
  }
}
