package dev.sluice.bench.workload.retention;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.Params;
import dev.sluice.testing.PatternVerifier;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The retention client on Netty: keeps every {@link ByteBuf} {@code channelRead} is given. */
final class NettyRetainingClient implements RetainingClient<ByteBuf> {
  private final NettyTransport transport;
  private final EventLoopGroup group;
  private final InetSocketAddress peer;

  NettyRetainingClient(Params params, NettyTransport transport) {
    this.transport = transport;
    this.group = NettySupport.group(transport, 1);
    this.peer = PeerAddress.of(params);
  }

  @Override
  public List<ByteBuf> receive(long chunks) throws Exception {
    CompletableFuture<List<ByteBuf>> done = new CompletableFuture<>();
    List<ByteBuf> kept = new ArrayList<>((int) chunks);
    NettySupport.client(
            transport,
            group,
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(ctx.alloc().buffer(Long.BYTES).writeLong(chunks));
              }

              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                kept.add((ByteBuf) msg);
                ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1));
              }

              @Override
              public void channelInactive(ChannelHandlerContext ctx) {
                // The peer shut its output after the last chunk; Netty closes on EOF by default.
                done.complete(kept);
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                done.completeExceptionally(new IOException("connection failed", cause));
                ctx.close();
              }
            })
        .connect(peer)
        .sync();
    return done.get(10, TimeUnit.MINUTES);
  }

  @Override
  public boolean verify(ByteBuf chunk, PatternVerifier verifier) {
    return NettySupport.verify(verifier, chunk);
  }

  @Override
  public int length(ByteBuf chunk) {
    return chunk.readableBytes();
  }

  @Override
  public void release(ByteBuf chunk) {
    chunk.release();
  }

  @Override
  public long nativeBytes() {
    return NettySupport.usedDirectMemory();
  }

  @Override
  public void close() {
    NettySupport.shutdown(group);
  }
}
