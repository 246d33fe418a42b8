package dev.sluice.net;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/** A {@link SocketChannel} on a {@link NioPoller}. */
final class NioStreamSocket implements StreamSocket {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  private final SocketChannel channel;
  private SelectionKey key;

  NioStreamSocket(SocketChannel channel) {
    this.channel = channel;
  }

  @Override
  public void register(Poller poller, Pollable owner, int ops) throws IOException {
    channel.configureBlocking(false);
    key = channel.register(((NioPoller) poller).selector(), ops, owner);
  }

  @Override
  public void interest(int ops) {
    if (key.isValid()) {
      key.interestOps(ops);
    }
  }

  @Override
  public void configure(SocketOptions options) throws IOException {
    if (channel.getLocalAddress() instanceof UnixDomainSocketAddress
        || channel.getRemoteAddress() instanceof UnixDomainSocketAddress
        || !channel.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
      applyBufferSizes(options);
      return;
    }
    channel.setOption(StandardSocketOptions.TCP_NODELAY, options.tcpNoDelay());
    channel.setOption(StandardSocketOptions.SO_KEEPALIVE, options.keepAlive());
    channel.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
    applyBufferSizes(options);
  }

  private void applyBufferSizes(SocketOptions options) throws IOException {
    if (options.sendBufferSize() > 0) {
      channel.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferSize());
    }
    if (options.receiveBufferSize() > 0) {
      channel.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
    }
  }

  @Override
  public boolean connect(SocketAddress remote) throws IOException {
    return channel.connect(remote) && connected();
  }

  @Override
  public boolean finishConnect() throws IOException {
    return channel.finishConnect() && connected();
  }

  /** Refuses a TCP connect that met itself, as the epoll socket does (it says why). */
  private boolean connected() throws IOException {
    SocketAddress remote = channel.getRemoteAddress();
    if (remote instanceof InetSocketAddress && remote.equals(channel.getLocalAddress())) {
      throw new ConnectException(
          "Connection refused: connected to itself at " + remote + " (nothing listens there)");
    }
    return true;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return channel.read(dst);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    return channel.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    return channel.write(srcs, offset, length);
  }

  @Override
  public void shutdownOutput() throws IOException {
    channel.shutdownOutput();
  }

  @Override
  public void lingerZero() throws IOException {
    if (channel.supportedOptions().contains(StandardSocketOptions.SO_LINGER)) {
      channel.setOption(StandardSocketOptions.SO_LINGER, 0);
    }
  }

  @Override
  public SocketAddress localAddress() {
    try {
      return channel.getLocalAddress();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public SocketAddress remoteAddress() {
    try {
      return channel.getRemoteAddress();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    if (key != null) {
      key.cancel();
    }
    try {
      channel.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing a socket", e);
    }
  }
}
