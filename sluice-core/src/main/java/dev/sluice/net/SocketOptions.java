package dev.sluice.net;

import java.time.Duration;

/**
 * Per-connection socket settings, for listeners (applied to accepted connections) and connectors.
 * TCP-only options are ignored on Unix-domain sockets.
 *
 * @param tcpNoDelay disable Nagle's algorithm
 * @param keepAlive enable TCP keep-alive probes
 * @param reuseAddress SO_REUSEADDR on listeners (and on NIO connectors; Sluice never binds a
 *     connecting socket, so on Linux it changes nothing there and the epoll transport skips it)
 * @param reusePort SO_REUSEPORT on TCP listeners: several processes may listen on one port (a new
 *     one starts while the old one drains), the kernel spreading connections over them
 * @param sendBufferSize SO_SNDBUF in bytes, 0 for the OS default
 * @param receiveBufferSize SO_RCVBUF in bytes, 0 for the OS default
 * @param idleTimeout close after no bytes moved and nothing was pending for this long; {@link
 *     Timeouts#NONE} for never
 * @param connectTimeout give up a connect after this long; {@link Timeouts#NONE} to wait as long as
 *     the operating system does
 * @param backlog listen backlog
 */
public record SocketOptions(
    boolean tcpNoDelay,
    boolean keepAlive,
    boolean reuseAddress,
    boolean reusePort,
    int sendBufferSize,
    int receiveBufferSize,
    Duration idleTimeout,
    Duration connectTimeout,
    int backlog) {

  public SocketOptions {
    if (sendBufferSize < 0 || receiveBufferSize < 0) {
      throw new IllegalArgumentException("socket buffer sizes must not be negative");
    }
    Timeouts.check("idleTimeout", idleTimeout);
    Timeouts.check("connectTimeout", connectTimeout);
    if (backlog < 1) {
      throw new IllegalArgumentException("backlog must be at least 1");
    }
  }

  /**
   * TCP_NODELAY on, keep-alive off, SO_REUSEADDR on, SO_REUSEPORT off, no idle timeout, 10 s
   * connect timeout.
   */
  public static SocketOptions defaults() {
    return new SocketOptions(
        true, false, true, false, 0, 0, Duration.ZERO, Duration.ofSeconds(10), 4096);
  }

  /** With an idle timeout. */
  public SocketOptions withIdleTimeout(Duration timeout) {
    return new SocketOptions(
        tcpNoDelay,
        keepAlive,
        reuseAddress,
        reusePort,
        sendBufferSize,
        receiveBufferSize,
        timeout,
        connectTimeout,
        backlog);
  }

  /** With a connect timeout. */
  public SocketOptions withConnectTimeout(Duration timeout) {
    return new SocketOptions(
        tcpNoDelay,
        keepAlive,
        reuseAddress,
        reusePort,
        sendBufferSize,
        receiveBufferSize,
        idleTimeout,
        timeout,
        backlog);
  }

  /** With SO_SNDBUF and SO_RCVBUF (0 for the OS default). */
  public SocketOptions withBufferSizes(int send, int receive) {
    return new SocketOptions(
        tcpNoDelay,
        keepAlive,
        reuseAddress,
        reusePort,
        send,
        receive,
        idleTimeout,
        connectTimeout,
        backlog);
  }

  /** With TCP keep-alive on or off. */
  public SocketOptions withKeepAlive(boolean on) {
    return new SocketOptions(
        tcpNoDelay,
        on,
        reuseAddress,
        reusePort,
        sendBufferSize,
        receiveBufferSize,
        idleTimeout,
        connectTimeout,
        backlog);
  }

  /** With SO_REUSEPORT on or off (TCP listeners). */
  public SocketOptions withReusePort(boolean on) {
    return new SocketOptions(
        tcpNoDelay,
        keepAlive,
        reuseAddress,
        on,
        sendBufferSize,
        receiveBufferSize,
        idleTimeout,
        connectTimeout,
        backlog);
  }

  /** With the listen backlog. */
  public SocketOptions withBacklog(int connections) {
    return new SocketOptions(
        tcpNoDelay,
        keepAlive,
        reuseAddress,
        reusePort,
        sendBufferSize,
        receiveBufferSize,
        idleTimeout,
        connectTimeout,
        connections);
  }
}
