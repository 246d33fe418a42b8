package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.util.List;

/**
 * The readiness source of one {@link EventLoop}, and the factory of the sockets it watches: the
 * JDK's NIO {@code Selector} ({@link NioPoller}) or Linux epoll through java.lang.foreign ({@link
 * EpollPoller}). The loop owns the poller; every method but {@link #wakeup()} runs on the loop's
 * thread, and sockets are opened, registered and used there too.
 */
sealed interface Poller permits NioPoller, EpollPoller {
  /** Readable, or at end of input, or in error. The bits are NIO's, so NIO needs no mapping. */
  int READ = SelectionKey.OP_READ;

  /** Writable, or in error. */
  int WRITE = SelectionKey.OP_WRITE;

  /** A non-blocking connect finished (or failed). */
  int CONNECT = SelectionKey.OP_CONNECT;

  /** A connection waits to be accepted. */
  int ACCEPT = SelectionKey.OP_ACCEPT;

  /** Which transport this is. */
  Transport transport();

  /** Hears each registration found ready. */
  @FunctionalInterface
  interface ReadySink {
    void ready(Pollable pollable, int readyOps);
  }

  /**
   * Waits until a registration is ready, {@link #wakeup()} is called, or {@code timeoutMillis}
   * passed (negative: no limit; 0: do not wait), and tells {@code sink} of each ready one.
   */
  void poll(long timeoutMillis, ReadySink sink) throws IOException;

  /** Makes a {@link #poll} in progress, or the next one, return at once. Any thread. */
  void wakeup();

  /** Everything registered now, for closing at shutdown. */
  List<Pollable> registrations();

  /** A new unconnected stream socket for {@code remote}'s family, not yet registered. */
  StreamSocket openStream(SocketAddress remote) throws IOException;

  /** Frees the poller; registered sockets must have been closed. */
  void close();
}
