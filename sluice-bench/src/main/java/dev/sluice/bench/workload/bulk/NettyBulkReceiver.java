package dev.sluice.bench.workload.bulk;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.Params;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The bulk receiver on Netty: every {@code channelRead} buffer is verified and released. */
final class NettyBulkReceiver implements BulkReceiver {
  private final NettyTransport transport;
  private final EventLoopGroup group;
  private final InetSocketAddress peer;
  private final Integrity integrity;
  private Channel channel;
  private Sink sink;

  NettyBulkReceiver(Params params, Integrity integrity, NettyTransport transport) {
    this.transport = transport;
    this.group = NettySupport.group(transport, 1);
    this.peer = PeerAddress.of(params);
    this.integrity = integrity;
  }

  @Override
  public void connect() throws Exception {
    sink = new Sink();
    channel = NettySupport.client(transport, group, sink).connect(peer).sync().channel();
  }

  @Override
  public long receive(long bytes) throws Exception {
    channel.writeAndFlush(Unpooled.copyLong(bytes));
    sink.done.get(10, TimeUnit.MINUTES);
    sink.verifier.finish(bytes);
    integrity.check(sink.verifier, "channel " + channel.id());
    return sink.verifier.offset();
  }

  @Override
  public void close() {
    NettySupport.shutdown(group);
  }

  private static final class Sink extends ChannelInboundHandlerAdapter {
    final PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      NettySupport.verify(verifier, in);
      in.release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      // The peer shut its output after the last byte; Netty closes on EOF by default.
      done.complete(null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      done.completeExceptionally(new IOException("connection failed", cause));
      ctx.close();
    }
  }
}
