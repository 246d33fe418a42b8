package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.NettySupport;
import dev.sluice.bench.child.NettyTransport;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The echo clients on Netty: each message is a buffer from the channel's allocator, filled and
 * written with {@code writeAndFlush}, as a Netty application would.
 */
final class NettyEchoClients implements EchoClients {
  private final EchoSetup setup;
  private final NettyTransport transport;
  private final EventLoopGroup group;
  private final List<Pinger> pingers = new ArrayList<>();

  NettyEchoClients(EchoSetup setup, NettyTransport transport) {
    this.setup = setup;
    this.transport = transport;
    this.group = NettySupport.group(transport, setup.loops());
  }

  @Override
  public void connect(int connections) throws Exception {
    for (int i = 0; i < connections; i++) {
      Pinger pinger = new Pinger(i);
      pinger.channel =
          NettySupport.client(transport, group, pinger).connect(setup.peer()).sync().channel();
      pingers.add(pinger);
    }
  }

  @Override
  public void run(int size, int rounds) throws Exception {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (Pinger pinger : pingers) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      all.add(done);
      pinger.channel.eventLoop().execute(() -> pinger.start(size, rounds, done));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
  }

  @Override
  public void close() {
    NettySupport.shutdown(group);
  }

  private final class Pinger extends ChannelInboundHandlerAdapter {
    private final int index;
    private final PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    private Channel channel;
    private ChannelHandlerContext context;
    private CompletableFuture<Void> done;
    private long sendOffset;
    private int size;
    private int remaining;
    private long awaiting;

    Pinger(int index) {
      this.index = index;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      context = ctx;
    }

    void start(int messageSize, int rounds, CompletableFuture<Void> roundDone) {
      size = messageSize;
      remaining = rounds;
      done = roundDone;
      if (rounds == 0) {
        done.complete(null);
      } else {
        send();
      }
    }

    private void send() {
      ByteBuf message = context.alloc().buffer(size);
      PayloadPattern.DEFAULT.fill(message.nioBuffer(0, size), sendOffset);
      message.writerIndex(size);
      sendOffset += size;
      awaiting = size;
      context.writeAndFlush(message, context.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf in = (ByteBuf) msg;
      if (!NettySupport.verify(verifier, in)) {
        setup.integrity().check(verifier, "connection " + index);
      }
      awaiting -= in.readableBytes();
      in.release();
      if (awaiting == 0) {
        if (--remaining > 0) {
          send();
        } else {
          done.complete(null);
        }
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (done != null) {
        done.completeExceptionally(
            new IOException("connection " + index + " closed during a round"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (done != null) {
        done.completeExceptionally(new IOException("connection " + index + " failed", cause));
      }
      ctx.close();
    }
  }
}
