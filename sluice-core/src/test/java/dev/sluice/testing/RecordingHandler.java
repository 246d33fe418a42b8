package dev.sluice.testing;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.TransportConfig;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsHandshakeListener;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records what happens to one connection, plain or TLS, for tests to wait on and assert:
 * activation, every chunk (checked against the exact-size contract), the bytes (hashed, and kept up
 * to a limit), end of input, writability changes (with the bytes pending at the time), the close
 * reason and a failed TLS handshake. Callbacks run on the loop; the test thread reads results
 * through the futures and accessors. Subclasses react to bytes in {@link #onBytes}.
 */
public class RecordingHandler implements ChunkHandler, TlsHandshakeListener {
  private final CompletableFuture<Connection> active = new CompletableFuture<>();
  private final CompletableFuture<Void> endOfInput = new CompletableFuture<>();
  private final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
  private final CompletableFuture<CloseReason> handshakeFailed = new CompletableFuture<>();

  /** What the connection's accessors threw when asked in {@link #onHandshakeFailed}. */
  public final List<RuntimeException> accessorFailures = new CopyOnWriteArrayList<>();

  private final AtomicInteger endOfInputCalls = new AtomicInteger();
  private final List<WritabilityChange> writabilityChanges = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final boolean shutdownOutputOnEndOfInput;
  private final int keepLimit;
  private final int copyThreshold;
  private final MessageDigest digest = Sha256.newDigest();
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private long received;
  private long expected = -1;
  private CompletableFuture<String> allReceived;
  private int chunks;
  private int handedOffChunks;

  /** One writability callback. */
  public record WritabilityChange(boolean writable, long pendingWriteBytes) {}

  /** Keeps every byte; shuts its output down at end of input, as the default handler does. */
  public RecordingHandler() {
    this(true);
  }

  /**
   * @param shutdownOutputOnEndOfInput whether end of input shuts this side's output (completing the
   *     close), or leaves this side open for writing
   */
  public RecordingHandler(boolean shutdownOutputOnEndOfInput) {
    this(shutdownOutputOnEndOfInput, Integer.MAX_VALUE, TransportConfig.DEFAULT_COPY_THRESHOLD);
  }

  /**
   * @param keepLimit the most bytes kept for {@link #receivedBytes()} (all are hashed)
   * @param copyThreshold reads up to this size must arrive as copies, not slab hand-offs
   */
  public RecordingHandler(int keepLimit, int copyThreshold) {
    this(true, keepLimit, copyThreshold);
  }

  private RecordingHandler(boolean shutdownOutputOnEndOfInput, int keepLimit, int copyThreshold) {
    this.shutdownOutputOnEndOfInput = shutdownOutputOnEndOfInput;
    this.keepLimit = keepLimit;
    this.copyThreshold = copyThreshold;
  }

  /** Completes with the connection when it becomes active. */
  public CompletableFuture<Connection> active() {
    return active;
  }

  /** Completes with the connection, as a TLS connection, when it becomes active. */
  public CompletableFuture<TlsConnection> tlsActive() {
    return active.thenApply(TlsConnection.class::cast);
  }

  /** The connection, once active (fails the test if it never becomes active). */
  public Connection connection() {
    return Await.result(active, "connection to become active");
  }

  /** Completes at (the first) end of input. */
  public CompletableFuture<Void> endOfInput() {
    return endOfInput;
  }

  /** How many times end of input was reported (it must be once at most). */
  public int endOfInputCalls() {
    return endOfInputCalls.get();
  }

  /** Completes with the close reason. */
  public CompletableFuture<CloseReason> closed() {
    return closed;
  }

  /** Completes with the reason when a TLS handshake failed (then {@link #closed()} never does). */
  public CompletableFuture<CloseReason> handshakeFailed() {
    return handshakeFailed;
  }

  /** Breaches of the exact-size contract seen so far (empty when all chunks were right). */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** Chunks received. */
  public synchronized int chunks() {
    return chunks;
  }

  /** Chunks that arrived as whole-slab hand-offs. */
  public synchronized int handedOffChunks() {
    return handedOffChunks;
  }

  /** The writability callbacks so far, in order. */
  public List<WritabilityChange> writabilityChanges() {
    return List.copyOf(writabilityChanges);
  }

  /** Completes with the SHA-256 (hex) of the first {@code bytes} bytes once they arrived. */
  public synchronized CompletableFuture<String> expect(long bytes) {
    expected = bytes;
    allReceived = new CompletableFuture<>();
    checkComplete();
    return allReceived;
  }

  /** Every byte kept so far, in order. */
  public synchronized byte[] receivedBytes() {
    return kept.toByteArray();
  }

  /** The bytes kept so far, as ASCII text. */
  public synchronized String text() {
    return kept.toString(StandardCharsets.US_ASCII);
  }

  /** Number of bytes read so far. */
  public synchronized long received() {
    return received;
  }

  /** Number of bytes read so far, for counts that fit an int. */
  public int receivedCount() {
    return (int) received();
  }

  @Override
  public void onActive(Connection connection) {
    active.complete(connection);
  }

  @Override
  public void onChunk(Connection connection, Chunk chunk) {
    byte[] bytes;
    try {
      checkExactSize(chunk);
      bytes = new byte[chunk.length()];
      chunk.buffer().get(bytes);
    } finally {
      chunk.release();
    }
    onBytes(connection, bytes);
  }

  private void checkExactSize(Chunk chunk) {
    var buffer = chunk.buffer();
    if (buffer.position() != 0
        || buffer.capacity() != chunk.length()
        || buffer.remaining() != chunk.length()) {
      violations.add("chunk view not exact-size: " + buffer + " for " + chunk.length() + " B");
    }
    if (chunk instanceof HeapChunk heap && heap.bytes().length != chunk.length()) {
      violations.add(
          "heap chunk backed by " + heap.bytes().length + " B for " + chunk.length() + " B");
    }
    if (chunk.length() == 0) {
      violations.add("empty chunk");
    }
    synchronized (this) {
      chunks++;
      if (!(chunk instanceof HeapChunk)) {
        handedOffChunks++;
        if (chunk.length() <= copyThreshold) {
          violations.add("a " + chunk.length() + " B read handed off a slab instead of a copy");
        }
      }
    }
  }

  /** Hashes and keeps the bytes; subclasses may react to them (they run on the loop). */
  protected void onBytes(Connection connection, byte[] bytes) {
    synchronized (this) {
      digest.update(bytes);
      if (kept.size() + (long) bytes.length <= keepLimit) {
        kept.writeBytes(bytes);
      }
      received += bytes.length;
      checkComplete();
    }
  }

  private void checkComplete() {
    if (allReceived != null && expected >= 0 && received >= expected && !allReceived.isDone()) {
      if (received > expected) {
        allReceived.completeExceptionally(
            new AssertionError("received " + received + " B, expected " + expected));
      } else {
        allReceived.complete(Sha256.hex(digest));
      }
    }
  }

  @Override
  public void onEndOfInput(Connection connection) {
    endOfInputCalls.incrementAndGet();
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
    failPending("the connection closed (" + reason + ")");
  }

  @Override
  public void onHandshakeFailed(TlsConnection connection, CloseReason reason) {
    try { // what a handler may ask of a connection whose TLS failed, or never started
      connection.session();
      connection.applicationProtocol();
      connection.pendingWriteBytes();
    } catch (RuntimeException e) {
      accessorFailures.add(e);
    }
    handshakeFailed.complete(reason);
    failPending("the handshake failed (" + reason + ")");
  }

  private synchronized void failPending(String why) {
    if (allReceived != null && !allReceived.isDone()) {
      allReceived.completeExceptionally(
          new AssertionError(why + " after " + received + " of " + expected + " B"));
    }
  }

  /** Copies of the violations, for messages. */
  @Override
  public String toString() {
    return getClass().getSimpleName() + new ArrayList<>(violations);
  }
}
