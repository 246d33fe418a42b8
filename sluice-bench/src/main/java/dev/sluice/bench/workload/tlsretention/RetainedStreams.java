package dev.sluice.bench.workload.tlsretention;

import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a retaining client received on its connections: every chunk is verified against the pattern
 * as it arrives, and each is kept with probability 1/{@code keepEvery} (the rest are released at
 * once). The choice is random, from a fixed seed, rather than every N-th read: a fixed stride
 * aliases with the peer's record pattern (the JDK sends a 16 KiB write as a 16367 B record and a 17
 * B record, so with N = 50 every read kept by a record-per-read implementation was a 17 B one).
 * Used on the client's one event loop thread, then read by the driver once every connection has
 * ended.
 *
 * @param <T> what the implementation hands the application per read
 */
final class RetainedStreams<T> {
  /** Bytes an implementation hands the application, and how to check and free them. */
  interface ChunkOps<T> {
    /** Feeds the chunk's bytes to {@code verifier}. */
    void verify(T chunk, PatternVerifier verifier);

    /** Bytes in the chunk. */
    int length(T chunk);

    /** Gives the chunk back to the implementation. */
    void release(T chunk);
  }

  /**
   * A kept chunk and where it sat in its connection's stream.
   *
   * @param chunk the chunk, owned by the client until the driver releases it
   * @param streamOffset the stream offset of its first byte
   */
  record Kept<T>(T chunk, long streamOffset) {}

  /** One connection's stream. */
  final class Stream {
    private final PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();

    /** Takes one read: verifies it, and keeps or releases it. */
    void accept(T chunk) {
      long offset = verifier.offset();
      ops.verify(chunk, verifier);
      reads++;
      readBytes += ops.length(chunk);
      if (choice.nextInt(keepEvery) == 0) {
        kept.add(new Kept<>(chunk, offset));
      } else {
        ops.release(chunk);
      }
    }

    /** The stream's verifier (its offset is the bytes received so far). */
    PatternVerifier verifier() {
      return verifier;
    }
  }

  private static final long SEED = 3; // seed 003

  private final ChunkOps<T> ops;
  private final int keepEvery;
  private final SplittableRandom choice = new SplittableRandom(SEED);
  private final List<Stream> streams = new ArrayList<>();
  private final List<Kept<T>> kept = new ArrayList<>();
  private long reads;
  private long readBytes;

  RetainedStreams(ChunkOps<T> ops, int keepEvery) {
    this.ops = ops;
    this.keepEvery = keepEvery;
  }

  /** A new connection's stream. */
  Stream newStream() {
    Stream stream = new Stream();
    streams.add(stream);
    return stream;
  }

  /** Every connection's stream, in the order they were made. */
  List<Stream> streams() {
    return streams;
  }

  /** The kept chunks, in arrival order. */
  List<Kept<T>> kept() {
    return kept;
  }

  /** Reads handed to the application, on all connections. */
  long reads() {
    return reads;
  }

  /** Bytes handed to the application, on all connections. */
  long readBytes() {
    return readBytes;
  }

  /** How the implementation's chunks are checked, measured and freed. */
  ChunkOps<T> ops() {
    return ops;
  }
}
