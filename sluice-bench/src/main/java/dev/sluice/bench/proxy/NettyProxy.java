package dev.sluice.bench.proxy;

import dev.sluice.bench.child.NettyTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The Netty arm of the proxy benchmarks: a TCP proxy written the way Netty's own proxy example does
 * it, as a program of its own.
 *
 * <p>Auto-read is off on both legs. The frontend handler opens the backend channel when the client
 * connection becomes active, on the same event loop, and reads the client's first bytes once the
 * backend is connected; every read is written to the other leg with {@code writeAndFlush}, and the
 * next read on that side is asked for only when the write succeeded, so a pair holds at most one
 * read in flight per direction (backpressure). When either leg closes, the other is flushed and
 * closed. NIO transport ({@code --transport epoll}: Netty's native epoll, refusing to start when it
 * does not load), Netty's default allocator and event-loop sizes (one acceptor thread; workers:
 * twice the cores), {@code TCP_NODELAY} on both legs like every Netty arm here. With {@code --cert}
 * and {@code --key}, TLS is terminated by an {@code SslHandler} from {@link SslProvider#JDK}, or
 * with {@code --provider openssl} from {@link SslProvider#OPENSSL} (netty-tcnative's BoringSSL; the
 * proxy refuses to start when it does not load), Netty's defaults otherwise (its session cache and
 * tickets).
 *
 * <p>Usage: {@code NettyProxy --listen HOST:PORT --upstream HOST:PORT [--cert PEM --key PEM
 * [--provider jdk|openssl]] [--transport nio|epoll]}. It runs until killed (SIGTERM).
 */
public final class NettyProxy {
  private NettyProxy() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    InetSocketAddress listen = address(required(options, "listen"));
    InetSocketAddress upstream = address(required(options, "upstream"));
    SslProvider provider = provider(options.getOrDefault("provider", "jdk"));
    NettyTransport transport = NettyTransport.parse(options.getOrDefault("transport", "nio"));
    SslContext tls =
        options.containsKey("cert")
            ? SslContextBuilder.forServer(
                    new File(required(options, "cert")), new File(required(options, "key")))
                .sslProvider(provider)
                .build()
            : null;

    EventLoopGroup acceptor = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(transport.ioHandlerFactory());
    try {
      Channel server =
          new ServerBootstrap()
              .group(acceptor, workers)
              .channel(transport.serverSocketChannel())
              .option(ChannelOption.SO_BACKLOG, 4096)
              .childOption(ChannelOption.AUTO_READ, false)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                      if (tls != null) {
                        channel.pipeline().addLast(tls.newHandler(channel.alloc()));
                      }
                      channel.pipeline().addLast(new Frontend(upstream, transport));
                    }
                  })
              .bind(listen)
              .sync()
              .channel();
      System.err.println(
          "netty proxy listening on "
              + listen
              + ", upstream "
              + upstream
              + ", "
              + transport.id()
              + (tls == null ? "" : ", TLS on " + library(provider)));
      server.closeFuture().sync();
    } finally {
      acceptor.shutdownGracefully();
      workers.shutdownGracefully();
    }
  }

  /** The client's leg: opens the backend, forwards client bytes to it. */
  private static final class Frontend extends ChannelInboundHandlerAdapter {
    private final InetSocketAddress upstream;
    private final NettyTransport transport;
    private Channel backend;

    Frontend(InetSocketAddress upstream, NettyTransport transport) {
      this.upstream = upstream;
      this.transport = transport;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel client = ctx.channel();
      ChannelFuture connect =
          new Bootstrap()
              .group(client.eventLoop())
              .channel(transport.socketChannel())
              .option(ChannelOption.AUTO_READ, false)
              .option(ChannelOption.TCP_NODELAY, true)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
              .handler(new Backend(client))
              .connect(upstream);
      backend = connect.channel();
      connect.addListener(
          (ChannelFutureListener)
              f -> {
                if (f.isSuccess()) {
                  client.read(); // the client's first bytes
                } else {
                  client.close();
                }
              });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (backend.isActive()) {
        backend
            .writeAndFlush(msg)
            .addListener(
                (ChannelFutureListener)
                    f -> {
                      if (f.isSuccess()) {
                        ctx.channel().read();
                      } else {
                        f.channel().close();
                      }
                    });
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (backend != null) {
        closeOnFlush(backend);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closeOnFlush(ctx.channel());
    }
  }

  /** The upstream's leg: forwards upstream bytes to the client. */
  private static final class Backend extends ChannelInboundHandlerAdapter {
    private final Channel client;

    Backend(Channel client) {
      this.client = client;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      client
          .writeAndFlush(msg)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (f.isSuccess()) {
                      ctx.channel().read();
                    } else {
                      f.channel().close();
                    }
                  });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closeOnFlush(client);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closeOnFlush(ctx.channel());
    }
  }

  /** Closes {@code channel} once what is queued on it has been written. */
  private static void closeOnFlush(Channel channel) {
    if (channel.isActive()) {
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }

  private static SslProvider provider(String name) {
    return switch (name) {
      case "jdk" -> SslProvider.JDK;
      case "openssl" -> {
        if (!OpenSsl.isAvailable()) {
          throw new IllegalStateException(
              "--provider openssl: netty-tcnative did not load", OpenSsl.unavailabilityCause());
        }
        yield SslProvider.OPENSSL;
      }
      default -> throw new IllegalArgumentException("--provider is jdk or openssl, got " + name);
    };
  }

  private static String library(SslProvider provider) {
    return provider == SslProvider.OPENSSL ? OpenSsl.versionString() : "the JDK's SSLEngine";
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing --" + name);
    }
    return value;
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
