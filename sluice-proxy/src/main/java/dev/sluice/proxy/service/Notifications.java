package dev.sluice.proxy.service;

/**
 * The messages of the service manager's notification protocol ({@code sd_notify(3)}): newline
 * separated {@code KEY=VALUE} lines in one datagram.
 */
public final class Notifications {
  private Notifications() {}

  /** Started (or reloaded) and serving; {@code status} is what {@code systemctl status} shows. */
  public static String ready(String status) {
    return "READY=1\n" + status(status);
  }

  /**
   * A reload begins, at {@code monotonicMicros} on {@code CLOCK_MONOTONIC} (the manager uses it to
   * tell this reload from an older one).
   */
  public static String reloading(long monotonicMicros) {
    return "RELOADING=1\nMONOTONIC_USEC=" + monotonicMicros + "\n" + status("reloading");
  }

  /** A graceful stop begins (the drain). */
  public static String stopping(String status) {
    return "STOPPING=1\n" + status(status);
  }

  /** Still alive: resets the manager's watchdog timer. */
  public static String watchdog() {
    return "WATCHDOG=1";
  }

  /** A {@code STATUS=} line: one line, whatever {@code text} holds. */
  static String status(String text) {
    return "STATUS=" + text.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }
}
