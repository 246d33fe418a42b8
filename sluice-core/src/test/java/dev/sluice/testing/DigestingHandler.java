package dev.sluice.testing;

import dev.sluice.memory.Chunk;
import dev.sluice.net.ChunkHandler;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;

/**
 * Receives a stream up to end of input and reports its length and SHA-256. Every chunk is checked
 * against the exact-size contract and released at once. A close before end of input, or a broken
 * contract, fails {@link #received()}.
 */
public class DigestingHandler implements ChunkHandler {
  private final int copyThreshold;
  private final MessageDigest digest = Sha256.newDigest();
  private final CompletableFuture<Received> received = new CompletableFuture<>();
  private volatile long bytes; // written on the loop only; volatile for bytesSoFar()
  private long chunks;

  /** What arrived. */
  public record Received(long bytes, String sha256, long chunks) {}

  /**
   * @param copyThreshold the transport's copy threshold, for the exact-size check
   */
  public DigestingHandler(int copyThreshold) {
    this.copyThreshold = copyThreshold;
  }

  /** Completes at end of input. */
  public CompletableFuture<Received> received() {
    return received;
  }

  /** Bytes received so far; readable from any thread. */
  public long bytesSoFar() {
    return bytes;
  }

  @Override
  public void onChunk(Connection connection, Chunk chunk) {
    try {
      ExactSize.check(chunk, copyThreshold);
      digest.update(chunk.buffer());
      bytes += chunk.length();
      chunks++;
    } finally {
      chunk.release();
    }
  }

  @Override
  public void onEndOfInput(Connection connection) {
    received.complete(new Received(bytes, Sha256.hex(digest), chunks));
    connection.shutdownOutput();
  }

  @Override
  public void onClose(Connection connection, CloseReason reason) {
    if (!received.isDone()) {
      AssertionError error =
          new AssertionError(
              "closed (" + reason + ") after " + bytes + " bytes, before end of input");
      if (reason instanceof CloseReason.Error(Throwable cause)) {
        error.initCause(cause);
      }
      received.completeExceptionally(error);
    }
  }
}
