package dev.sluice.bench.workload.bulk;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The bulk receiver on Sluice, through the default read path: every read is taken as a {@link
 * Chunk} (copied out up to the threshold, a handed-off slab above it), verified and released.
 */
final class SluiceBulkReceiver implements BulkReceiver {
  private final EventLoopGroup group = SluiceSupport.group(1);
  private final InetSocketAddress peer;
  private final Integrity integrity;
  private Connection connection;
  private Sink sink;

  SluiceBulkReceiver(Params params, Integrity integrity) {
    this.peer = PeerAddress.of(params);
    this.integrity = integrity;
  }

  @Override
  public void connect() throws Exception {
    sink = new Sink();
    connection = SluiceSupport.connect(group, peer, sink);
  }

  @Override
  public long receive(long bytes) throws Exception {
    connection.write(SluiceSupport.header(bytes));
    sink.done.get(10, TimeUnit.MINUTES);
    sink.verifier.finish(bytes);
    integrity.check(sink.verifier, "connection " + connection.id());
    return sink.verifier.offset();
  }

  @Override
  public void close() {
    group.close();
  }

  private static final class Sink implements ChunkHandler {
    final PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      verifier.update(chunk.buffer());
      chunk.release();
    }

    @Override
    public void onEndOfInput(Connection connection) {
      done.complete(null);
      connection.shutdownOutput();
    }

    @Override
    public void onClose(Connection connection, CloseReason reason) {
      done.completeExceptionally(new IOException("connection closed early: " + reason));
    }
  }
}
