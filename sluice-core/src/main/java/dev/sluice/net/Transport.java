package dev.sluice.net;

import java.util.Locale;
import java.util.Optional;

/**
 * Which poller and sockets an {@link EventLoopGroup} runs on.
 *
 * <p>{@link #AUTO} picks {@link #EPOLL} on Linux when its native calls link (the JVM must run with
 * native access enabled for Sluice, e.g. {@code --enable-native-access=ALL-UNNAMED}), else {@link
 * #NIO}. The system property {@code sluice.transport} ({@code auto}, {@code epoll}, {@code nio})
 * sets what {@link TransportConfig#defaults()} asks for.
 */
public enum Transport {
  /** Epoll where it works, else NIO. */
  AUTO,
  /** Linux epoll through java.lang.foreign: raw descriptors, no JDK channel per socket. */
  EPOLL,
  /** The JDK's NIO selector and channels: every platform. */
  NIO;

  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  /** The lower-case name used in configuration files and reports. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The transport named {@code name} ({@code auto}, {@code epoll} or {@code nio}, any case).
   *
   * @throws IllegalArgumentException for any other name
   */
  public static Transport of(String name) {
    for (Transport t : values()) {
      if (t.id().equalsIgnoreCase(name.strip())) {
        return t;
      }
    }
    throw new IllegalArgumentException("transport must be auto, epoll or nio, not '" + name + "'");
  }

  /** What {@link TransportConfig#defaults()} asks for: {@code sluice.transport}, else auto. */
  static Transport fromSystemProperty() {
    String name = System.getProperty("sluice.transport");
    return name == null || name.isBlank() ? AUTO : of(name);
  }

  /**
   * The transport this choice runs on: itself, or for {@link #AUTO} epoll when available, else NIO.
   *
   * @throws IllegalStateException when {@link #EPOLL} is asked for where it cannot run
   */
  public Transport resolve() {
    return switch (this) {
      case NIO -> NIO;
      case EPOLL -> {
        Optional<String> why = epollUnavailable();
        if (why.isPresent()) {
          throw new IllegalStateException("transport epoll cannot run here: " + why.get());
        }
        yield EPOLL;
      }
      case AUTO -> epollUnavailable().isPresent() ? NIO : EPOLL;
    };
  }

  /** Why the epoll transport cannot run in this JVM, or empty when it can. */
  public static Optional<String> epollUnavailable() {
    return EpollSupport.UNAVAILABLE;
  }

  /** Looked at once: the answer cannot change while the JVM runs. */
  private static final class EpollSupport {
    static final Optional<String> UNAVAILABLE = probe();

    private static Optional<String> probe() {
      String os = System.getProperty("os.name", "");
      if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
        return Optional.of("not Linux (" + os + ")");
      }
      if (!Transport.class.getModule().isNativeAccessEnabled()) {
        return Optional.of(
            "native access is not enabled (run java with --enable-native-access="
                + (Transport.class.getModule().isNamed() ? "dev.sluice.core" : "ALL-UNNAMED")
                + ")");
      }
      try {
        new EpollPoller().close();
        return Optional.empty();
      } catch (Throwable t) { // a libc without a symbol, a seccomp filter, ...
        LOG.log(System.Logger.Level.DEBUG, "epoll probe failed", t);
        return Optional.of(String.valueOf(t));
      }
    }
  }
}
