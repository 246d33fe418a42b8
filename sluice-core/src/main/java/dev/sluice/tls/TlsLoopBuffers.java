package dev.sluice.tls;

import dev.sluice.internal.LoopInternals;
import dev.sluice.internal.MemoryCounters;
import dev.sluice.internal.ReadSlab;
import dev.sluice.internal.SlabPool;
import dev.sluice.net.EventLoop;
import dev.sluice.net.LoopLocal;
import dev.sluice.net.TransportConfig;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;

/**
 * The TLS working memory of one event loop, shared by every TLS connection on it, so that a
 * connection owns none:
 *
 * <ul>
 *   <li>a plaintext {@link ReadSlab} that records are decrypted into and lent to the application
 *       from, under the same copy-out rule as plain TCP reads;
 *   <li>a ciphertext buffer that writes are encrypted into, a record or two at a time;
 *   <li>an assembly buffer where a partial record kept from the previous read is completed.
 * </ul>
 */
final class TlsLoopBuffers implements AutoCloseable {
  /** The largest TLS record the JDK accepts, with jdk.tls.acceptLargeFragments (33093 B). */
  static final int MAX_PACKET = 33 * 1024 + 128;

  /** Records encrypted ahead of what the socket has accepted. */
  static final int RECORDS_PER_WRITE = 2;

  /**
   * A plaintext slab must hold the largest record's plaintext; otherwise it has the configured slab
   * size, so hand-offs waste no more than with plain TCP.
   */
  private static final int MIN_PLAINTEXT_SLAB = MAX_PACKET;

  static final LoopLocal<TlsLoopBuffers> SLOT = new LoopLocal<>(TlsLoopBuffers::new);

  private final MemoryCounters counters;
  private final SlabPool plaintextPool;
  private final ReadSlab plaintext;
  private final Arena arena = Arena.ofConfined();
  private final ByteBuffer ciphertextOut;
  private final ByteBuffer assembly;
  private final long nativeBytes;
  private final ByteBuffer[] gather = new ByteBuffer[32];

  private TlsLoopBuffers(EventLoop loop) {
    TransportConfig config = loop.config();
    this.counters = LoopInternals.counters(loop);
    int slabSize = Math.max(config.slabSize(), MIN_PLAINTEXT_SLAB);
    this.plaintextPool = new SlabPool(slabSize, config.slabPoolSize(), counters, loop);
    plaintextPool.bindToCurrentThread();
    this.plaintext = new ReadSlab(plaintextPool, Math.min(config.copyThreshold(), slabSize));
    LoopInternals.lenders(loop).add(plaintext);
    int outSize = RECORDS_PER_WRITE * (16 * 1024 + 512);
    this.ciphertextOut = arena.allocate(Math.max(outSize, MAX_PACKET), 64).asByteBuffer();
    this.assembly = arena.allocate(MAX_PACKET, 64).asByteBuffer();
    this.nativeBytes = (long) ciphertextOut.capacity() + assembly.capacity();
    counters.addTlsBufferBytes(nativeBytes);
  }

  /** The loop's plaintext slab. */
  ReadSlab plaintext() {
    return plaintext;
  }

  /** The loop's ciphertext output buffer, cleared. */
  ByteBuffer ciphertextOut() {
    return ciphertextOut.clear();
  }

  /** The loop's record assembly buffer, cleared. */
  ByteBuffer assembly() {
    return assembly.clear();
  }

  /** A scratch array for gathering plaintext buffers into one wrap; clear it after use. */
  ByteBuffer[] gather() {
    return gather;
  }

  MemoryCounters counters() {
    return counters;
  }

  @Override
  public void close() {
    plaintext.close();
    plaintextPool.close();
    arena.close();
    counters.addTlsBufferBytes(-nativeBytes);
  }
}
