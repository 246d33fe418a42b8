package dev.sluice.bench.workload.tlsretention;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.NettyTls;
import dev.sluice.testing.PatternVerifier;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The tlsretention client on Netty: an {@link SslHandler} (the arm's provider, {@link NettyTls}) in
 * front of a handler that takes every decrypted {@link ByteBuf} {@code channelRead} is given.
 */
final class NettyTlsRetainingClient implements TlsRetainingClient<ByteBuf> {
  private static final RetainedStreams.ChunkOps<ByteBuf> OPS =
      new RetainedStreams.ChunkOps<>() {
        @Override
        public void verify(ByteBuf chunk, PatternVerifier verifier) {
          NettySupport.verify(verifier, chunk);
        }

        @Override
        public int length(ByteBuf chunk) {
          return chunk.readableBytes();
        }

        @Override
        public void release(ByteBuf chunk) {
          chunk.release();
        }
      };

  private final EventLoopGroup group = NettySupport.group(1);
  private final InetSocketAddress peer;
  private final NettyTls tls;
  private final SslContext ssl;

  NettyTlsRetainingClient(Params params, NettyTls tls) throws SSLException {
    this.peer = PeerAddress.of(params);
    this.tls = tls;
    this.ssl = tls.client();
  }

  @Override
  public String tlsLibrary() {
    return tls.library();
  }

  @Override
  public RetainedStreams.ChunkOps<ByteBuf> ops() {
    return OPS;
  }

  @Override
  public void receive(int connections, long bytesEach, RetainedStreams<ByteBuf> streams)
      throws Exception {
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      CompletableFuture<Void> end = new CompletableFuture<>();
      ends.add(end);
      RetainedStreams<ByteBuf>.Stream stream = streams.newStream();
      NettySupport.client(
              group,
              new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel channel) {
                  SslHandler sslHandler =
                      ssl.newHandler(channel.alloc(), BenchCertificate.HOST, peer.getPort());
                  channel
                      .pipeline()
                      .addLast(sslHandler, new Reader(sslHandler, stream, bytesEach, end));
                }
              })
          .connect(peer)
          .addListener(
              connected -> {
                if (!connected.isSuccess()) {
                  end.completeExceptionally(connected.cause());
                }
              });
    }
    CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
  }

  @Override
  public long nativeBytes() {
    return NettySupport.usedDirectMemory();
  }

  @Override
  public void close() {
    NettySupport.shutdown(group);
  }

  private final class Reader extends ChannelInboundHandlerAdapter {
    private final SslHandler sslHandler;
    private final RetainedStreams<ByteBuf>.Stream stream;
    private final long bytes;
    private final CompletableFuture<Void> end;

    Reader(
        SslHandler sslHandler,
        RetainedStreams<ByteBuf>.Stream stream,
        long bytes,
        CompletableFuture<Void> end) {
      this.sslHandler = sslHandler;
      this.stream = stream;
      this.bytes = bytes;
      this.end = end;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      sslHandler
          .handshakeFuture()
          .addListener(
              handshake -> {
                if (!handshake.isSuccess()) {
                  end.completeExceptionally(handshake.cause());
                  return;
                }
                try {
                  tls.checkNegotiated(sslHandler.engine());
                } catch (IllegalStateException e) {
                  end.completeExceptionally(e);
                  ctx.close();
                  return;
                }
                ctx.writeAndFlush(ctx.alloc().buffer(Long.BYTES).writeLong(bytes));
              });
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      stream.accept((ByteBuf) msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      // The peer sent close_notify and FIN after its last byte; the driver checks the count.
      end.complete(null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      end.completeExceptionally(new IOException("connection failed", cause));
      ctx.close();
    }
  }
}
