package dev.sluice.bench.workload.retention;

import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.testing.PatternVerifier;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The retention client on Sluice: keeps every {@link Chunk} its handler is given. */
final class SluiceRetainingClient implements RetainingClient<Chunk> {
  private static final ByteBuffer ACK = ByteBuffer.allocateDirect(1).put(0, (byte) 1);

  private final EventLoopGroup group = SluiceSupport.group(1);
  private final InetSocketAddress peer;

  SluiceRetainingClient(Params params) {
    this.peer = PeerAddress.of(params);
  }

  @Override
  public List<Chunk> receive(long chunks) throws Exception {
    CompletableFuture<List<Chunk>> done = new CompletableFuture<>();
    List<Chunk> kept = new ArrayList<>((int) chunks);
    SluiceSupport.connect(
        group,
        peer,
        new ChunkHandler() {
          @Override
          public void onActive(Connection connection) {
            connection.write(SluiceSupport.header(chunks));
          }

          @Override
          public void onChunk(Connection connection, Chunk chunk) {
            kept.add(chunk);
            connection.write(ACK.duplicate());
          }

          @Override
          public void onEndOfInput(Connection connection) {
            done.complete(kept);
            connection.shutdownOutput();
          }

          @Override
          public void onClose(Connection connection, CloseReason reason) {
            done.completeExceptionally(new IOException("connection closed early: " + reason));
          }
        });
    return done.get(10, TimeUnit.MINUTES);
  }

  @Override
  public boolean verify(Chunk chunk, PatternVerifier verifier) {
    return verifier.update(chunk.buffer());
  }

  @Override
  public int length(Chunk chunk) {
    return chunk.length();
  }

  @Override
  public void release(Chunk chunk) {
    chunk.release();
  }

  @Override
  public long nativeBytes() {
    return group.memoryStats().nativeBytes();
  }

  @Override
  public void close() {
    group.close();
  }
}
