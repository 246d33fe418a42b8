package dev.sluice.tls;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.HeapChunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A handler that records what a connection saw: every chunk checked against the exact-size
 * contract, bytes hashed (and kept, up to a limit), end of input, close reason, handshake failure.
 * Callbacks run on the loop; the test thread reads results through the futures.
 */
class RecordingHandler implements ChunkHandler, TlsHandshakeListener {
  final CompletableFuture<TlsConnection> active = new CompletableFuture<>();
  final CompletableFuture<Void> endOfInput = new CompletableFuture<>();
  final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
  final CompletableFuture<CloseReason> handshakeFailed = new CompletableFuture<>();
  final List<String> violations = new ArrayList<>();
  final java.util.concurrent.atomic.AtomicInteger endOfInputCalls =
      new java.util.concurrent.atomic.AtomicInteger();
  private final MessageDigest digest;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final int keepLimit;
  private final int copyThreshold;
  private long received;
  private long expected = -1;
  private CompletableFuture<String> allReceived;
  int chunks;
  int handedOffChunks;

  RecordingHandler() {
    this(1 << 20, dev.sluice.net.TransportConfig.DEFAULT_COPY_THRESHOLD);
  }

  RecordingHandler(int keepLimit, int copyThreshold) {
    this.keepLimit = keepLimit;
    this.copyThreshold = copyThreshold;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Completes with the SHA-256 (hex) of the first {@code bytes} bytes once they arrived. */
  synchronized CompletableFuture<String> expect(long bytes) {
    expected = bytes;
    allReceived = new CompletableFuture<>();
    checkComplete();
    return allReceived;
  }

  @Override
  public void onActive(Connection connection) {
    active.complete((TlsConnection) connection);
  }

  @Override
  public void onChunk(Connection connection, Chunk chunk) {
    ByteBuffer buffer = chunk.buffer();
    if (buffer.position() != 0
        || buffer.capacity() != chunk.length()
        || buffer.remaining() != chunk.length()) {
      violation("chunk view not exact-size: " + buffer + " for " + chunk.length() + " B");
    }
    if (chunk instanceof HeapChunk heap && heap.bytes().length != chunk.length()) {
      violation("heap chunk backed by " + heap.bytes().length + " B for " + chunk.length() + " B");
    }
    if (!(chunk instanceof HeapChunk)) {
      handedOffChunks++;
      if (chunk.length() <= copyThreshold) {
        violation("a " + chunk.length() + " B read handed off a slab instead of a copy");
      }
    }
    if (chunk.length() == 0) {
      violation("empty chunk");
    }
    chunks++;
    byte[] bytes = new byte[chunk.length()];
    buffer.get(bytes);
    chunk.release();
    onBytes(connection, bytes);
  }

  /** Hashes and keeps the bytes; subclasses may react to them (they run on the loop). */
  void onBytes(Connection connection, byte[] bytes) {
    synchronized (this) {
      digest.update(bytes);
      if (kept.size() + bytes.length <= keepLimit) {
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
        allReceived.complete(HexFormat.of().formatHex(digest.digest()));
      }
    }
  }

  synchronized long received() {
    return received;
  }

  synchronized String text() {
    return kept.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private synchronized void violation(String what) {
    violations.add(what);
  }

  @Override
  public void onEndOfInput(Connection connection) {
    endOfInputCalls.incrementAndGet();
    endOfInput.complete(null);
    ChunkHandler.super.onEndOfInput(connection);
  }

  @Override
  public void onClose(Connection connection, CloseReason reason) {
    closed.complete(reason);
    failPending("the connection closed (" + reason + ")");
  }

  private synchronized void failPending(String why) {
    if (allReceived != null && !allReceived.isDone()) {
      allReceived.completeExceptionally(
          new AssertionError(why + " after " + received + " of " + expected + " B"));
    }
  }

  @Override
  public void onHandshakeFailed(TlsConnection connection, CloseReason reason) {
    handshakeFailed.complete(reason);
    failPending("the handshake failed (" + reason + ")");
  }

  static String sha256(ByteBuffer payload) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(payload.duplicate());
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A seeded pseudo-random payload (heap or direct), so a misplaced byte changes the hash. */
  static ByteBuffer payload(int size, long seed, boolean direct) {
    byte[] bytes = new byte[size];
    new java.util.Random(seed).nextBytes(bytes);
    if (!direct) {
      return ByteBuffer.wrap(bytes);
    }
    ByteBuffer buffer = ByteBuffer.allocateDirect(size);
    buffer.put(bytes).flip();
    return buffer;
  }
}
