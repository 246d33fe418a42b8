package dev.sluice.testing;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A deterministic byte stream for integrity tests. Every 4 KiB block starts with its own offset (8
 * bytes, big-endian) and every other 8-byte word is a hash of the seed and its offset, so a
 * reordered, repeated, dropped or corrupted byte changes the SHA-256 of the stream.
 *
 * <p>The stream is generated piecewise ({@link #fill}), so the expected digest of any length is
 * computed without a second copy of the payload.
 *
 * @param seed distinguishes streams, e.g. one per connection
 */
public record PayloadPattern(long seed) {

  /** Distance between offset stamps. */
  public static final int STAMP_INTERVAL = 4096;

  private static final Map<PayloadPattern.Prefix, String> DIGESTS = new ConcurrentHashMap<>();

  private record Prefix(long seed, long length) {}

  /** The byte at {@code offset} of the stream. */
  public byte byteAt(long offset) {
    return (byte) (wordAt(offset & ~7L) >>> (56 - 8 * (offset & 7)));
  }

  /**
   * Fills {@code target} from its position to its limit with the stream starting at {@code
   * streamOffset}; the position does not move.
   */
  public void fill(ByteBuffer target, long streamOffset) {
    ByteBuffer out = target.duplicate().order(ByteOrder.BIG_ENDIAN);
    int i = out.position();
    int end = out.limit();
    long offset = streamOffset;
    while (i < end && (offset & 7) != 0) {
      out.put(i++, byteAt(offset++));
    }
    while (end - i >= Long.BYTES) {
      out.putLong(i, wordAt(offset));
      i += Long.BYTES;
      offset += Long.BYTES;
    }
    while (i < end) {
      out.put(i++, byteAt(offset++));
    }
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

  private long wordAt(long alignedOffset) {
    if (alignedOffset % STAMP_INTERVAL == 0) {
      return alignedOffset;
    }
    return mix(seed ^ alignedOffset);
  }

  // SplitMix64's finaliser: cheap, and every input bit affects every output bit.
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
