package dev.sluice.bench.child;

import dev.sluice.bench.harness.Impl;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The Netty transports the Netty arms run on: NIO (the {@code netty} arm) and the native epoll
 * transport (the {@code netty-epoll} arm, netty-transport-native-epoll for linux-x86_64).
 */
public enum NettyTransport {
  NIO("nio"),
  EPOLL("epoll");

  private final String id;

  NettyTransport(String id) {
    this.id = id;
  }

  /** The id NettyProxy's {@code --transport} takes. */
  public String id() {
    return id;
  }

  /** The transport of Netty arm {@code impl}. */
  public static NettyTransport of(Impl impl) {
    return switch (impl) {
      case NETTY, NETTY_OPENSSL -> NIO;
      case NETTY_EPOLL -> EPOLL;
      default -> throw new IllegalArgumentException(impl.id() + " is not a Netty arm");
    };
  }

  /**
   * Parses an id.
   *
   * @throws IllegalArgumentException naming the accepted ids
   */
  public static NettyTransport parse(String id) {
    for (NettyTransport transport : values()) {
      if (transport.id.equals(id)) {
        return transport;
      }
    }
    throw new IllegalArgumentException("--transport is nio or epoll, got '" + id + "'");
  }

  /**
   * The factory of this transport's event loops.
   *
   * @throws IllegalStateException with Netty's reason when the native epoll library did not load:
   *     the epoll arm never runs on NIO in its place
   */
  public IoHandlerFactory ioHandlerFactory() {
    if (this == NIO) {
      return NioIoHandler.newFactory();
    }
    requireEpoll();
    return EpollIoHandler.newFactory();
  }

  /** The client channel class of this transport. */
  public Class<? extends SocketChannel> socketChannel() {
    return this == NIO ? NioSocketChannel.class : EpollSocketChannel.class;
  }

  /** The server channel class of this transport. */
  public Class<? extends ServerSocketChannel> serverSocketChannel() {
    return this == NIO ? NioServerSocketChannel.class : EpollServerSocketChannel.class;
  }

  /**
   * Throws when Netty's native epoll transport cannot run here.
   *
   * @throws IllegalStateException carrying {@link Epoll#unavailabilityCause()}
   */
  public static void requireEpoll() {
    if (!Epoll.isAvailable()) {
      Throwable cause = Epoll.unavailabilityCause();
      throw new IllegalStateException(
          "the netty-epoll arm needs Netty's native epoll transport, which is not available here: "
              + cause,
          cause);
    }
  }
}
