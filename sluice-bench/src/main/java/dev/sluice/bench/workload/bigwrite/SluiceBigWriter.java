package dev.sluice.bench.workload.bigwrite;

import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.bench.harness.Params;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The big write on Sluice: {@link Connection#write(ByteBuffer, dev.sluice.net.WriteListener)}. */
final class SluiceBigWriter implements BigWriter {
  private final EventLoopGroup group = SluiceSupport.group(1);
  private final InetSocketAddress peer;
  private Connection connection;

  SluiceBigWriter(Params params) {
    this.peer = PeerAddress.of(params);
  }

  @Override
  public void connect(long bytes) throws Exception {
    // The peer sends nothing back; anything that arrived would be released at once.
    connection = SluiceSupport.connect(group, peer, (c, unused) -> {});
    connection.write(SluiceSupport.header(bytes)).get(30, TimeUnit.SECONDS);
  }

  @Override
  public long write(ByteBuffer payload) throws Exception {
    CompletableFuture<Long> done = new CompletableFuture<>();
    long start = System.nanoTime();
    connection.write(
        payload,
        error -> {
          long end = System.nanoTime();
          if (error == null) {
            done.complete(end - start);
          } else {
            done.completeExceptionally(error);
          }
        });
    return done.get(10, TimeUnit.MINUTES);
  }

  @Override
  public void finish() {
    connection.shutdownOutput();
  }

  @Override
  public void close() {
    group.close();
  }
}
