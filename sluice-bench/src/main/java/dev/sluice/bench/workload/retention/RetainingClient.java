package dev.sluice.bench.workload.retention;

import dev.sluice.testing.PatternVerifier;
import java.util.List;

/**
 * One implementation's side of the retention workload: a client that asks the peer for chunks,
 * acknowledges each read with one byte (so every chunk lands as its own read) and keeps every read
 * it is handed, as a protocol decoder that reassembles messages would.
 *
 * @param <T> what the implementation hands the application per read
 */
interface RetainingClient<T> extends AutoCloseable {

  /** Connects, asks for {@code chunks} chunks, and returns every read kept, in order. */
  List<T> receive(long chunks) throws Exception;

  /** Feeds {@code chunk}'s bytes to {@code verifier}. */
  boolean verify(T chunk, PatternVerifier verifier);

  /** Bytes in {@code chunk}. */
  int length(T chunk);

  /** Gives {@code chunk} back to the implementation. */
  void release(T chunk);

  /** Native memory the implementation holds now, by its own accounting. */
  long nativeBytes();

  /** Closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
