package dev.sluice.bench.child;

import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/** How the Sluice arms use Sluice: default transport settings, {@code n} loops. */
public final class SluiceSupport {
  private SluiceSupport() {}

  /** A group of {@code loops} loops, otherwise the defaults. */
  public static EventLoopGroup group(int loops) {
    return new EventLoopGroup(TransportConfig.defaults().withEventLoops(loops));
  }

  /** Connects and waits for the connection to be active. */
  public static Connection connect(
      EventLoopGroup group, InetSocketAddress address, ConnectionHandler handler) throws Exception {
    return group.connect(address, SocketOptions.defaults(), handler).get(30, TimeUnit.SECONDS);
  }

  /** An 8-byte big-endian request header (a byte count or chunk count). */
  public static ByteBuffer header(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(0, value);
  }
}
