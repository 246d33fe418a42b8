package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.SluiceSupport;
import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The echo clients on Sluice. Each connection reuses one direct message buffer: a write is queued
 * by reference, and the next message is only filled once the whole previous one has come back.
 */
final class SluiceEchoClients implements EchoClients {
  private final EchoSetup setup;
  private final EventLoopGroup group;
  private final List<Pinger> pingers = new ArrayList<>();

  SluiceEchoClients(EchoSetup setup) {
    this.setup = setup;
    this.group = SluiceSupport.group(setup.loops());
  }

  @Override
  public void connect(int connections) throws Exception {
    for (int i = 0; i < connections; i++) {
      Pinger pinger = new Pinger(i);
      pinger.connection = SluiceSupport.connect(group, setup.peer(), pinger);
      pingers.add(pinger);
    }
  }

  @Override
  public void run(int size, int rounds) throws Exception {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (Pinger pinger : pingers) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      all.add(done);
      pinger.connection.loop().execute(() -> pinger.start(size, rounds, done));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
  }

  @Override
  public void close() {
    group.close();
  }

  private final class Pinger implements ChunkHandler {
    private final int index;
    private final ByteBuffer message = ByteBuffer.allocateDirect(setup.maxMessage());
    private final PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    private Connection connection;
    private CompletableFuture<Void> done;
    private long sendOffset;
    private int size;
    private int remaining;
    private long awaiting;

    Pinger(int index) {
      this.index = index;
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
      message.clear().limit(size);
      PayloadPattern.DEFAULT.fill(message, sendOffset);
      sendOffset += size;
      awaiting = size;
      connection.write(message, null);
    }

    @Override
    public void onChunk(Connection c, Chunk chunk) {
      if (!verifier.update(chunk.buffer())) {
        setup.integrity().check(verifier, "connection " + index);
      }
      awaiting -= chunk.length();
      chunk.release();
      if (awaiting == 0) {
        if (--remaining > 0) {
          send();
        } else {
          done.complete(null);
        }
      }
    }

    @Override
    public void onClose(Connection c, CloseReason reason) {
      if (done != null) {
        done.completeExceptionally(
            new IOException("connection " + index + " closed during a round: " + reason));
      }
    }
  }
}
