package dev.sluice.bench.child;

import dev.sluice.testing.PatternVerifier;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * How the Netty arms use Netty: their transport (NIO, or native epoll for the netty-epoll arm),
 * default allocator, TCP_NODELAY like Sluice.
 */
public final class NettySupport {
  private NettySupport() {}

  /** An NIO event loop group of {@code threads} threads. */
  public static EventLoopGroup group(int threads) {
    return group(NettyTransport.NIO, threads);
  }

  /** An event loop group of {@code threads} threads on {@code transport}. */
  public static EventLoopGroup group(NettyTransport transport, int threads) {
    return new MultiThreadIoEventLoopGroup(threads, transport.ioHandlerFactory());
  }

  /** A client bootstrap on NIO {@code group} whose channels get {@code handler}. */
  public static Bootstrap client(EventLoopGroup group, ChannelHandler handler) {
    return client(NettyTransport.NIO, group, handler);
  }

  /**
   * A client bootstrap on {@code group} (made by {@link #group(NettyTransport, int)} with the same
   * {@code transport}) whose channels get {@code handler}.
   */
  public static Bootstrap client(
      NettyTransport transport, EventLoopGroup group, ChannelHandler handler) {
    return new Bootstrap()
        .group(group)
        .channel(transport.socketChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(handler);
  }

  /**
   * A server on loopback (any free port) whose accepted channels get {@code childHandler}; {@code
   * group} accepts and serves, as a Sluice group's loops do. Returns the bound server channel.
   */
  public static Channel listen(EventLoopGroup group, ChannelHandler childHandler)
      throws InterruptedException {
    return new ServerBootstrap()
        .group(group)
        .channel(NettyTransport.NIO.serverSocketChannel())
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(childHandler)
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .sync()
        .channel();
  }

  /** Shuts {@code group} down without a quiet period and waits for it. */
  public static void shutdown(EventLoopGroup group) {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * Native memory held by Netty's default allocator (pooled chunks plus unpooled buffers). On JDK
   * 25 Netty allocates through FFM, which the JDK's direct BufferPoolMXBean does not see, so the
   * allocator's own metric is the figure.
   */
  public static long usedDirectMemory() {
    return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
  }

  /** Feeds the readable bytes of {@code buf} to {@code verifier} without moving its indices. */
  public static boolean verify(PatternVerifier verifier, ByteBuf buf) {
    for (ByteBuffer piece : buf.nioBuffers()) {
      if (!verifier.update(piece)) {
        return false;
      }
    }
    return true;
  }
}
