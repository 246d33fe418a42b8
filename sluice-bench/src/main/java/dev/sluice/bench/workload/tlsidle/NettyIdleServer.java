package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.tls.NettyTls;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tlsidle server on Netty, one event loop: {@code ServerBootstrap}, NIO, an {@link SslHandler}
 * (the arm's provider, {@link NettyTls}) for TLS, and an echo handler that writes each read back
 * and flushes at the end of the read batch.
 */
final class NettyIdleServer implements IdleServer {
  private final EventLoopGroup group = NettySupport.group(1);
  private final AtomicInteger open = new AtomicInteger();
  private final Channel server;
  private final String tlsLibrary;

  /** A server speaking TLS with {@code tls}, or plain TCP when it is null. */
  NettyIdleServer(NettyTls tls) throws Exception {
    SslContext ssl = tls == null ? null : tls.server();
    this.tlsLibrary = tls == null ? null : tls.library();
    this.server =
        NettySupport.listen(
            group,
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel channel) {
                if (ssl == null) {
                  channel.pipeline().addLast(new Echo(null));
                  return;
                }
                SslHandler sslHandler = ssl.newHandler(channel.alloc());
                channel.pipeline().addLast(sslHandler, new Echo(tls));
              }
            });
  }

  @Override
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  @Override
  public String tlsLibrary() {
    return tlsLibrary;
  }

  @Override
  public int openConnections() {
    return open.get();
  }

  @Override
  public long nativeBytes() {
    return NettySupport.usedDirectMemory();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    NettySupport.shutdown(group);
  }

  private final class Echo extends ChannelInboundHandlerAdapter {
    private final NettyTls tls;
    private boolean counted;

    Echo(NettyTls tls) {
      this.tls = tls;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      if (tls == null) {
        counted = true;
        open.incrementAndGet();
      }
      ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
        counted = true;
        open.incrementAndGet();
        tls.checkNegotiated(ctx.pipeline().get(SslHandler.class).engine());
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      ctx.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (counted) {
        open.decrementAndGet();
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      cause.printStackTrace(System.err);
      ctx.close();
    }
  }
}
