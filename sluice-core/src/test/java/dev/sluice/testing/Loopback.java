package dev.sluice.testing;

import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.function.Supplier;

/**
 * An event loop group with one listener on a loopback address: both ends of every test connection
 * live in it. Closing it closes every connection and frees every slab.
 */
public final class Loopback implements AutoCloseable {
  private final EventLoopGroup group;
  private final Listener listener;

  private Loopback(EventLoopGroup group, Listener listener) {
    this.group = group;
    this.listener = listener;
  }

  /**
   * Starts a group and listens on {@code bindAddress}.
   *
   * @param serverHandlers one handler per accepted connection
   */
  public static Loopback start(
      TransportConfig config,
      SocketAddress bindAddress,
      SocketOptions serverOptions,
      Supplier<? extends ConnectionHandler> serverHandlers)
      throws IOException {
    EventLoopGroup group = new EventLoopGroup(config);
    try {
      return new Loopback(group, group.listen(bindAddress, serverOptions, serverHandlers));
    } catch (IOException | RuntimeException e) {
      group.close();
      throw e;
    }
  }

  /** Starts a group with default socket options on the listener. */
  public static Loopback start(
      TransportConfig config,
      SocketAddress bindAddress,
      Supplier<? extends ConnectionHandler> serverHandlers)
      throws IOException {
    return start(config, bindAddress, SocketOptions.defaults(), serverHandlers);
  }

  /** The group both ends live in. */
  public EventLoopGroup group() {
    return group;
  }

  /** The listener. */
  public Listener listener() {
    return listener;
  }

  /** Where the listener is bound. */
  public SocketAddress address() {
    return listener.localAddress();
  }

  /** Connects a client with default options and waits until it is active. */
  public Connection connect(ConnectionHandler handler) {
    return connect(SocketOptions.defaults(), handler);
  }

  /** Connects a client and waits until it is active. */
  public Connection connect(SocketOptions options, ConnectionHandler handler) {
    return Await.result(group.connect(address(), options, handler), "connect to " + address());
  }

  @Override
  public void close() {
    listener.close();
    group.close();
  }
}
