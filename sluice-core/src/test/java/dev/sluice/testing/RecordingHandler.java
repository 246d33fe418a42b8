package dev.sluice.testing;

import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records what happens to one connection, for tests to wait on and assert: activation, the bytes
 * read, end of input, writability changes (with the bytes pending at the time) and the close
 * reason. Subclasses add behaviour by overriding and calling {@code super}.
 */
public class RecordingHandler implements ChunkHandler {
  private final CompletableFuture<Connection> active = new CompletableFuture<>();
  private final CompletableFuture<Void> endOfInput = new CompletableFuture<>();
  private final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
  private final ByteArrayOutputStream received = new ByteArrayOutputStream();
  private final List<WritabilityChange> writabilityChanges = new CopyOnWriteArrayList<>();
  private final boolean shutdownOutputOnEndOfInput;

  /** One writability callback. */
  public record WritabilityChange(boolean writable, long pendingWriteBytes) {}

  /** Shuts its output down at end of input, as the default handler does. */
  public RecordingHandler() {
    this(true);
  }

  /**
   * @param shutdownOutputOnEndOfInput whether end of input shuts this side's output (completing the
   *     close), or leaves this side open for writing
   */
  public RecordingHandler(boolean shutdownOutputOnEndOfInput) {
    this.shutdownOutputOnEndOfInput = shutdownOutputOnEndOfInput;
  }

  /** Completes with the connection when it becomes active. */
  public CompletableFuture<Connection> active() {
    return active;
  }

  /** The connection, once active (fails the test if it never becomes active). */
  public Connection connection() {
    return Await.result(active, "connection to become active");
  }

  /** Completes at end of input. */
  public CompletableFuture<Void> endOfInput() {
    return endOfInput;
  }

  /** Completes with the close reason. */
  public CompletableFuture<CloseReason> closed() {
    return closed;
  }

  /** Every byte read so far, in order. */
  public byte[] receivedBytes() {
    synchronized (received) {
      return received.toByteArray();
    }
  }

  /** Number of bytes read so far. */
  public int receivedCount() {
    synchronized (received) {
      return received.size();
    }
  }

  /** The writability callbacks so far, in order. */
  public List<WritabilityChange> writabilityChanges() {
    return List.copyOf(writabilityChanges);
  }

  @Override
  public void onActive(Connection connection) {
    active.complete(connection);
  }

  @Override
  public void onChunk(Connection connection, Chunk chunk) {
    try {
      byte[] bytes = new byte[chunk.length()];
      chunk.buffer().get(bytes);
      synchronized (received) {
        received.writeBytes(bytes);
      }
    } finally {
      chunk.release();
    }
  }

  @Override
  public void onEndOfInput(Connection connection) {
    endOfInput.complete(null);
    if (shutdownOutputOnEndOfInput) {
      connection.shutdownOutput();
    }
  }

  @Override
  public void onWritabilityChanged(Connection connection, boolean writable) {
    writabilityChanges.add(new WritabilityChange(writable, connection.pendingWriteBytes()));
  }

  @Override
  public void onClose(Connection connection, CloseReason reason) {
    closed.complete(reason);
  }
}
