package dev.sluice.bench.workload.tlsretention;

import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.SluiceTls;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The tlsretention client on Sluice: a {@link TlsClient}; reads arrive as {@link Chunk}s. */
final class SluiceTlsRetainingClient implements TlsRetainingClient<Chunk> {
  private static final RetainedStreams.ChunkOps<Chunk> OPS =
      new RetainedStreams.ChunkOps<>() {
        @Override
        public void verify(Chunk chunk, PatternVerifier verifier) {
          verifier.update(chunk.buffer());
        }

        @Override
        public int length(Chunk chunk) {
          return chunk.length();
        }

        @Override
        public void release(Chunk chunk) {
          chunk.release();
        }
      };

  private final EventLoopGroup group = SluiceSupport.group(1);
  private final InetSocketAddress peer;
  private final BenchTls tls;
  private final TlsClient client;

  SluiceTlsRetainingClient(Params params, BenchTls tls) throws GeneralSecurityException {
    this.peer = PeerAddress.of(params);
    this.tls = tls;
    this.client = SluiceTls.client(tls);
  }

  @Override
  public String tlsLibrary() {
    return tls.jdkLibrary();
  }

  @Override
  public RetainedStreams.ChunkOps<Chunk> ops() {
    return OPS;
  }

  @Override
  public void receive(int connections, long bytesEach, RetainedStreams<Chunk> streams)
      throws Exception {
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      CompletableFuture<Void> end = new CompletableFuture<>();
      ends.add(end);
      Reader reader = new Reader(streams.newStream(), bytesEach, end);
      client
          .connect(group, peer, SocketOptions.defaults(), reader)
          .whenComplete(
              (connection, error) -> {
                if (error != null) {
                  end.completeExceptionally(error);
                }
              });
    }
    CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
  }

  @Override
  public long nativeBytes() {
    return group.memoryStats().nativeBytes();
  }

  @Override
  public void close() {
    group.close();
  }

  private final class Reader implements ChunkHandler {
    private final RetainedStreams<Chunk>.Stream stream;
    private final long bytes;
    private final CompletableFuture<Void> end;

    Reader(RetainedStreams<Chunk>.Stream stream, long bytes, CompletableFuture<Void> end) {
      this.stream = stream;
      this.bytes = bytes;
      this.end = end;
    }

    @Override
    public void onActive(Connection connection) {
      tls.checkNegotiated(((TlsConnection) connection).session());
      connection.write(SluiceSupport.header(bytes));
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      stream.accept(chunk);
    }

    @Override
    public void onEndOfInput(Connection connection) {
      end.complete(null); // the peer's close_notify came after its last byte
      connection.shutdownOutput();
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      end.completeExceptionally(new IOException("connection closed early: " + reason));
    }
  }
}
