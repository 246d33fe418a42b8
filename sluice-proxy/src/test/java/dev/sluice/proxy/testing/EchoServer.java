package dev.sluice.proxy.testing;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream for proxy tests: echoes every byte back, with backpressure (it stops reading while
 * its echo is not drained, so a slow reader at the far end slows it down instead of filling it),
 * and echoes the end of input too. Its own group, so it measures nothing of the proxy's.
 */
public final class EchoServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Listener listener;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();

  private EchoServer(SocketAddress bind) throws IOException {
    group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    listener = group.listen(bind, SocketOptions.defaults(), Echo::new);
  }

  /** An echo server bound to {@code bind} (TCP port 0, or a Unix socket path). */
  public static EchoServer start(SocketAddress bind) throws IOException {
    return new EchoServer(bind);
  }

  /** Where it listens. */
  public SocketAddress address() {
    return listener.localAddress();
  }

  /** Connections it accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** Connections open now. */
  public int open() {
    return open.get();
  }

  @Override
  public void close() {
    listener.close();
    group.close();
  }

  private final class Echo implements ConnectionHandler, WriteListener {
    private Connection connection;

    @Override
    public void onActive(Connection c) {
      connection = c;
      accepted.incrementAndGet();
      open.incrementAndGet();
    }

    @Override
    public void onRead(Connection c, BorrowedBytes bytes) {
      c.writeTransient(bytes.buffer(), this);
      if (c.pendingWriteBytes() > 0) {
        c.pauseReading();
      }
    }

    @Override
    public void onWriteComplete(Throwable error) {
      if (error == null && connection.pendingWriteBytes() == 0) {
        connection.resumeReading();
      }
    }

    @Override
    public void onClose(Connection c, dev.sluice.net.CloseReason reason) {
      open.decrementAndGet();
    }
  }
}
