package dev.sluice.bench.workload.bulk;

/** One implementation's side of the bulk transfer: receive a stream, verifying every byte. */
interface BulkReceiver extends AutoCloseable {

  /** Opens a connection to the peer, ready for {@link #receive}. */
  void connect() throws Exception;

  /**
   * Asks the peer for {@code bytes} bytes on the connection opened last and waits until the peer
   * has sent them all and shut its output.
   *
   * @return how many bytes arrived, every one verified against the pattern (a failure is recorded
   *     in the receiver's integrity verdict)
   */
  long receive(long bytes) throws Exception;

  /** Closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
