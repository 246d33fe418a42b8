package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A bound, listening socket of a transport, in non-blocking mode. Loop thread only once registered.
 */
interface ListenSocket {
  /** Watches the socket with {@code poller} for {@link Poller#ACCEPT}, telling {@code owner}. */
  void register(Poller poller, Pollable owner) throws IOException;

  /** Sets the operations to watch for: {@link Poller#ACCEPT} or 0 (paused). */
  void interest(int ops) throws IOException;

  /** The next pending connection, unregistered, or null when none waits. */
  StreamSocket accept() throws IOException;

  /** The bound address (with the real port when 0 was asked for). */
  SocketAddress localAddress();

  /**
   * Stops watching and closes. True when the socket is unbound only once the poller lets go of it
   * (NIO's cancelled keys), false when it is unbound already.
   */
  boolean close();
}
