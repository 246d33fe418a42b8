package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.SluiceTls;
import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.tls.TlsConnection;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The tlsidle server on Sluice, one loop: a {@code TlsServer} listener (or a plain one), whose
 * handler echoes each read straight from the borrowed read buffer, as a forwarder would.
 */
final class SluiceIdleServer implements IdleServer {
  private final EventLoopGroup group = SluiceSupport.group(1);
  private final AtomicInteger open = new AtomicInteger();
  private final Listener listener;
  private final String tlsLibrary;

  SluiceIdleServer(BenchTls tls) throws Exception {
    this.tlsLibrary = tls == null ? null : tls.jdkLibrary();
    InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
    Supplier<ConnectionHandler> echo = () -> new Echo(tls);
    this.listener =
        tls == null
            ? group.listen(any, SocketOptions.defaults(), echo)
            : SluiceTls.server(tls).listen(group, any, SocketOptions.defaults(), echo);
  }

  @Override
  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
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
    return group.memoryStats().nativeBytes();
  }

  @Override
  public void close() {
    listener.close();
    group.close();
  }

  private final class Echo implements ChunkHandler {
    private final BenchTls tls;

    Echo(BenchTls tls) {
      this.tls = tls;
    }

    @Override
    public void onActive(Connection connection) {
      open.incrementAndGet(); // onClose follows even if the check below fails
      if (tls != null) {
        tls.checkNegotiated(((TlsConnection) connection).session());
      }
    }

    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      connection.writeTransient(bytes.buffer(), null);
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      throw new AssertionError("reads are borrowed"); // onReadBorrowed takes every read
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      open.decrementAndGet();
    }
  }
}
