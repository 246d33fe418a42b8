package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;

/** A {@link ServerSocketChannel} on a {@link NioPoller}. */
final class NioListenSocket implements ListenSocket {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  private final ServerSocketChannel server;
  private final SocketAddress localAddress;
  private SelectionKey key;

  private NioListenSocket(ServerSocketChannel server) throws IOException {
    this.server = server;
    this.localAddress = server.getLocalAddress();
  }

  /** Binds {@code address} on the calling thread, so that a bad address fails here. */
  static NioListenSocket open(SocketAddress address, SocketOptions options) throws IOException {
    boolean unix = address instanceof UnixDomainSocketAddress;
    ServerSocketChannel server =
        unix ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
    try {
      if (!unix) {
        server.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
        if (options.reusePort()) {
          server.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        }
      }
      if (options.receiveBufferSize() > 0) {
        server.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
      }
      server.bind(address, options.backlog());
      server.configureBlocking(false);
      return new NioListenSocket(server);
    } catch (IOException e) {
      server.close();
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    } catch (UnresolvedAddressException e) {
      server.close(); // unchecked, but a failed bind all the same: the socket must not leak
      throw new IOException("cannot listen on " + address + ": the host name does not resolve", e);
    } catch (RuntimeException e) {
      server.close(); // an unsupported address type, a security manager: nor must it leak then
      throw e;
    }
  }

  @Override
  public void register(Poller poller, Pollable owner) throws IOException {
    key = server.register(((NioPoller) poller).selector(), SelectionKey.OP_ACCEPT, owner);
  }

  @Override
  public void interest(int ops) {
    if (key != null && key.isValid()) {
      key.interestOps(ops);
    }
  }

  @Override
  public StreamSocket accept() throws IOException {
    SocketChannel channel = server.accept();
    return channel == null ? null : new NioStreamSocket(channel);
  }

  @Override
  public SocketAddress localAddress() {
    return localAddress;
  }

  @Override
  public boolean close() {
    if (key != null) {
      key.cancel();
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing listener " + localAddress, e);
    }
    return key != null;
  }
}
