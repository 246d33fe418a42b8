package dev.sluice.bench.workload.bigwrite;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.Params;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The big write on Netty: {@code writeAndFlush(Unpooled.wrappedBuffer(payload))}, the payload
 * wrapped without a copy (Netty itself copies a heap buffer into direct memory on write).
 */
final class NettyBigWriter implements BigWriter {
  private final NettyTransport transport;
  private final EventLoopGroup group;
  private final InetSocketAddress peer;
  private Channel channel;

  NettyBigWriter(Params params, NettyTransport transport) {
    this.transport = transport;
    this.group = NettySupport.group(transport, 1);
    this.peer = PeerAddress.of(params);
  }

  @Override
  public void connect(long bytes) throws Exception {
    // The peer sends nothing back; the pipeline's tail would release anything that arrived.
    channel =
        NettySupport.client(transport, group, new ChannelInboundHandlerAdapter())
            .connect(peer)
            .sync()
            .channel();
    channel.writeAndFlush(Unpooled.copyLong(bytes)).sync();
  }

  @Override
  public long write(ByteBuffer payload) throws Exception {
    CompletableFuture<Long> done = new CompletableFuture<>();
    long start = System.nanoTime();
    channel
        .writeAndFlush(Unpooled.wrappedBuffer(payload))
        .addListener(
            future -> {
              long end = System.nanoTime();
              if (future.isSuccess()) {
                done.complete(end - start);
              } else {
                done.completeExceptionally(future.cause());
              }
            });
    return done.get(10, TimeUnit.MINUTES);
  }

  @Override
  public void finish() {
    ((SocketChannel) channel).shutdownOutput();
  }

  @Override
  public void close() {
    NettySupport.shutdown(group);
  }
}
