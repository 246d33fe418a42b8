package dev.sluice.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one payload every integrity check in the project uses, in tests and benchmarks: a stream cut
 * into 4 KiB blocks, each starting with its own stream offset (8 bytes, big-endian) and filled with
 * a block of bytes derived from the seed. A lost, repeated, reordered or changed byte is wrong at
 * its offset, and streams of different seeds (one per connection) cannot be mistaken for each
 * other, so bytes crossing between connections are caught too. The fixed filler lets {@link
 * PatternVerifier} compare with a vectorised mismatch, fast enough for gigabytes.
 *
 * <p>The stream is generated piecewise ({@link #fill}), so a payload or its digest of any length
 * needs no second copy.
 */
public final class PayloadPattern {
  /** Bytes per block; each block begins with its stream offset. */
  public static final int BLOCK = 4096;

  /** Bytes of the offset stamp at the start of each block. */
  public static final int STAMP = Long.BYTES;

  /** The stream of seed 0, which the benchmarks send. */
  public static final PayloadPattern DEFAULT = new PayloadPattern(0);

  private static final Map<Prefix, String> DIGESTS = new ConcurrentHashMap<>();

  private record Prefix(long seed, long length) {}

  private final long seed;
  private final byte[] filler;
  private final MemorySegment fillerSegment;

  /** The stream of {@code seed}. */
  public PayloadPattern(long seed) {
    this.seed = seed;
    this.filler = new byte[BLOCK];
    for (int i = 0; i < BLOCK; i += Long.BYTES) {
      long word = mix(seed * 0x9e3779b97f4a7c15L + i);
      for (int b = 0; b < Long.BYTES; b++) {
        filler[i + b] = (byte) (word >>> (56 - 8 * b));
      }
    }
    this.fillerSegment = MemorySegment.ofArray(filler);
  }

  /** The seed. */
  public long seed() {
    return seed;
  }

  /** The byte at {@code offset} of the stream. */
  public byte byteAt(long offset) {
    int inBlock = (int) (offset & (BLOCK - 1));
    if (inBlock < STAMP) {
      long blockStart = offset - inBlock;
      return (byte) (blockStart >>> (8 * (STAMP - 1 - inBlock)));
    }
    return filler[inBlock];
  }

  /**
   * Fills {@code target} between its position and limit with the stream from {@code streamOffset};
   * position and limit stay as they are.
   */
  public void fill(ByteBuffer target, long streamOffset) {
    fill(MemorySegment.ofBuffer(target), streamOffset);
  }

  /** Fills all of {@code target} with the stream from {@code streamOffset}. */
  public void fill(MemorySegment target, long streamOffset) {
    long length = target.byteSize();
    long done = 0;
    while (done < length) {
      long offset = streamOffset + done;
      int inBlock = (int) (offset & (BLOCK - 1));
      int n = (int) Math.min(BLOCK - inBlock, length - done);
      int i = 0;
      for (; i < n && inBlock + i < STAMP; i++) {
        target.set(ValueLayout.JAVA_BYTE, done + i, byteAt(offset + i));
      }
      if (i < n) {
        MemorySegment.copy(fillerSegment, inBlock + i, target, done + i, n - i);
      }
      done += n;
    }
  }

  /** A new array holding {@code length} bytes of the stream from {@code streamOffset}. */
  public byte[] bytes(long streamOffset, int length) {
    byte[] bytes = new byte[length];
    fill(MemorySegment.ofArray(bytes), streamOffset);
    return bytes;
  }

  /** The first {@code size} bytes of this stream in a new heap or direct buffer. */
  public ByteBuffer buffer(int size, boolean direct) {
    ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    fill(buffer, 0);
    return buffer;
  }

  /** A verifier of this stream from offset 0. */
  public PatternVerifier verifier() {
    return new PatternVerifier(this, 0);
  }

  /** A verifier of this stream from {@code startOffset}. */
  public PatternVerifier verifier(long startOffset) {
    return new PatternVerifier(this, startOffset);
  }

  /** The SHA-256 of the first {@code length} bytes, generated in 64 KiB pieces and cached. */
  public String sha256(long length) {
    return DIGESTS.computeIfAbsent(new Prefix(seed, length), p -> computeSha256(p.length()));
  }

  private String computeSha256(long length) {
    MessageDigest digest = Sha256.newDigest();
    ByteBuffer piece = ByteBuffer.allocate(64 * 1024);
    for (long done = 0; done < length; ) {
      int n = (int) Math.min(piece.capacity(), length - done);
      piece.clear().limit(n);
      fill(piece, done);
      digest.update(piece.array(), 0, n);
      done += n;
    }
    return Sha256.hex(digest);
  }

  /**
   * A payload of the first {@code size} bytes of this stream in a new buffer of the given kind.
   * Direct payloads live in a shared arena (the event loop reads them from its own thread) that
   * {@link Payload#close()} frees at once.
   */
  public Payload newPayload(BufferKind kind, int size) {
    Arena arena = kind == BufferKind.DIRECT ? Arena.ofShared() : null;
    ByteBuffer buffer =
        arena == null
            ? ByteBuffer.allocate(size)
            : arena.allocate(Math.max(1, size)).asByteBuffer();
    buffer.limit(size);
    fill(buffer, 0);
    return new Payload(this, buffer, arena);
  }

  MemorySegment fillerSegment() {
    return fillerSegment;
  }

  // SplitMix64's finaliser: cheap, and every input bit affects every output bit.
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PayloadPattern p && p.seed == seed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(seed);
  }

  @Override
  public String toString() {
    return "PayloadPattern[seed " + seed + "]";
  }
}
