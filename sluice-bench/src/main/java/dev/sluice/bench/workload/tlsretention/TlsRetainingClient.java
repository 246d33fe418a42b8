package dev.sluice.bench.workload.tlsretention;

/**
 * One implementation's side of tlsretention: a TLS client that opens connections to the peer, asks
 * each for a number of bytes, and hands every decrypted read to a {@link RetainedStreams.Stream}.
 *
 * @param <T> what the implementation hands the application per read
 */
interface TlsRetainingClient<T> extends AutoCloseable {

  /** The TLS library the arm runs on, as the report names it. */
  String tlsLibrary();

  /** How this implementation's chunks are checked, measured and freed. */
  RetainedStreams.ChunkOps<T> ops();

  /**
   * Opens {@code connections} TLS connections at once, asks each for {@code bytesEach} bytes, and
   * returns when every one has received the peer's close_notify; reads go to {@code streams}.
   */
  void receive(int connections, long bytesEach, RetainedStreams<T> streams) throws Exception;

  /** Native memory the implementation holds now, by its own accounting. */
  long nativeBytes();

  /** Closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
