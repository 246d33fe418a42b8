package dev.sluice.testing;

import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsClientConfig;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.function.Supplier;

/**
 * An event loop group with one listener on a loopback address, plain or TLS: both ends of every
 * test connection live in it. Closing it closes every connection and frees every slab.
 */
public final class Loopback implements AutoCloseable {
  private final EventLoopGroup group;
  private final Listener listener;
  private final TlsClient tlsClient;

  private Loopback(EventLoopGroup group, Listener listener, TlsClient tlsClient) {
    this.group = group;
    this.listener = listener;
    this.tlsClient = tlsClient;
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
      return new Loopback(group, group.listen(bindAddress, serverOptions, serverHandlers), null);
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

  /**
   * Starts a group of two loops for one cell of the stream matrix: its transport (bound in {@code
   * dir} for Unix sockets), its write cap, and for TLS a server with the test PKI's certificate and
   * clients that verify it.
   */
  public static Loopback start(
      StreamCase cell,
      Path dir,
      SocketOptions serverOptions,
      Supplier<? extends ConnectionHandler> serverHandlers)
      throws IOException {
    TransportConfig config = cell.config(TransportConfig.defaults().withEventLoops(2));
    if (!cell.tls()) {
      return start(config, cell.transport().bindAddress(dir), serverOptions, serverHandlers);
    }
    EventLoopGroup group = new EventLoopGroup(config);
    try {
      TestPki pki = TestPki.get();
      String protocol = cell.security().protocol();
      TlsServer server =
          TlsServer.create(TlsServerConfig.of(pki.serverKeyMaterial()).withProtocols(protocol));
      TlsClient client =
          TlsClient.create(
              TlsClientConfig.trusting(pki.caTrust())
                  .withServerName("localhost")
                  .withProtocols(protocol));
      Listener listener =
          server.listen(group, cell.transport().bindAddress(dir), serverOptions, serverHandlers);
      return new Loopback(group, listener, client);
    } catch (GeneralSecurityException e) {
      group.close();
      throw new IllegalStateException("the test PKI did not load", e);
    } catch (IOException | RuntimeException e) {
      group.close();
      throw e;
    }
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

  /** Connects a client (TLS when the listener speaks it) and waits until it is active. */
  public Connection connect(SocketOptions options, ConnectionHandler handler) {
    if (tlsClient != null) {
      return Await.result(
          tlsClient.connect(group, address(), options, handler), "TLS connect to " + address());
    }
    return Await.result(group.connect(address(), options, handler), "connect to " + address());
  }

  @Override
  public void close() {
    listener.close();
    group.close();
  }
}
