package dev.sluice.bench.workload.tlsthroughput;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.NettyTls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import java.nio.ByteBuffer;
import javax.net.ssl.SSLException;

/**
 * The tlsthroughput server on Netty: {@code ServerBootstrap}, NIO, one event loop that accepts and
 * serves, an {@link SslHandler} (the arm's provider, {@link NettyTls}) in front of the sender.
 */
final class NettyTlsSenderServer implements TlsSenderServer {
  private final EventLoopGroup group = NettySupport.group(1);
  private final Channel server;
  private final String tlsLibrary;

  NettyTlsSenderServer(Params params, NettyTls tls) throws SSLException, InterruptedException {
    ChunkArrays arrays = new ChunkArrays(params.intBytes(TlsThroughputWorkload.CHUNK));
    SslContext ssl = tls.server();
    this.tlsLibrary = tls.library();
    this.server =
        NettySupport.listen(
            group,
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel channel) {
                SslHandler sslHandler = ssl.newHandler(channel.alloc());
                channel
                    .pipeline()
                    .addLast(sslHandler, new Sender(tls, sslHandler, new PatternSender(arrays)));
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
  public void close() {
    server.close().syncUninterruptibly();
    NettySupport.shutdown(group);
  }

  private static final class Sender extends ChannelInboundHandlerAdapter {
    private final NettyTls tls;
    private final SslHandler sslHandler;
    private final PatternSender sender;
    private boolean outputShut;

    Sender(NettyTls tls, SslHandler sslHandler, PatternSender sender) {
      this.tls = tls;
      this.sslHandler = sslHandler;
      this.sender = sender;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
        tls.checkNegotiated(sslHandler.engine());
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      boolean requested = sender.acceptRequest(in.nioBuffer());
      in.release();
      if (requested) {
        pump(ctx);
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        pump(ctx);
      }
      ctx.fireChannelWritabilityChanged();
    }

    private void pump(ChannelHandlerContext ctx) {
      ByteBuffer next;
      boolean wrote = false;
      while (ctx.channel().isWritable() && (next = sender.next()) != null) {
        byte[] array = next.array();
        ctx.write(Unpooled.wrappedBuffer(next))
            .addListener(
                written -> {
                  if (written.isSuccess()) {
                    sender.recycle(array); // encrypted and handed to the socket
                  }
                });
        wrote = true;
      }
      if (wrote) {
        ctx.flush();
      }
      if (sender.finished() && !outputShut) {
        outputShut = true;
        sslHandler.closeOutbound(); // close_notify after what was flushed
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      cause.printStackTrace(System.err);
      ctx.close();
    }
  }
}
