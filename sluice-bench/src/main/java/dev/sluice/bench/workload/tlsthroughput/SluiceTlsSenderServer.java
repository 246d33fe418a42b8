package dev.sluice.bench.workload.tlsthroughput;

import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.SluiceTls;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.tls.TlsConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/** The tlsthroughput server on Sluice: a {@code TlsServer} listener, one loop. */
final class SluiceTlsSenderServer implements TlsSenderServer {
  private final EventLoopGroup group = SluiceSupport.group(1);
  private final Listener listener;
  private final String tlsLibrary;

  SluiceTlsSenderServer(Params params, BenchTls tls) throws GeneralSecurityException, IOException {
    ChunkArrays arrays = new ChunkArrays(params.intBytes(TlsThroughputWorkload.CHUNK));
    this.tlsLibrary = tls.jdkLibrary();
    this.listener =
        SluiceTls.server(tls)
            .listen(
                group,
                new InetSocketAddress("127.0.0.1", 0),
                SocketOptions.defaults(),
                () -> new Sender(tls, new PatternSender(arrays)));
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
  public void close() {
    listener.close();
    group.close();
  }

  private static final class Sender implements ChunkHandler {
    private final BenchTls tls;
    private final PatternSender sender;
    private boolean outputShut;

    Sender(BenchTls tls, PatternSender sender) {
      this.tls = tls;
      this.sender = sender;
    }

    @Override
    public void onActive(Connection connection) {
      tls.checkNegotiated(((TlsConnection) connection).session());
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      boolean requested = sender.acceptRequest(chunk.buffer());
      chunk.release();
      if (requested) {
        pump(connection);
      }
    }

    @Override
    public void onWritabilityChanged(Connection connection, boolean writable) {
      if (writable) {
        pump(connection);
      }
    }

    private void pump(Connection connection) {
      ByteBuffer next;
      while (connection.isWritable() && (next = sender.next()) != null) {
        byte[] array = next.array();
        connection.write(
            next,
            error -> {
              if (error == null) {
                sender.recycle(array);
              }
            });
      }
      if (sender.finished() && !outputShut) {
        outputShut = true;
        connection.shutdownOutput(); // close_notify once every write is encrypted
      }
    }
  }
}
