package dev.sluice.bench.workload.echo;

/**
 * One implementation's side of the echo workloads: connections to an echo peer, each sending a
 * message of its own pattern stream and waiting for all of it to come back, verified, before
 * sending the next.
 */
interface EchoClients extends AutoCloseable {

  /** Opens {@code connections} connections to the peer. */
  void connect(int connections) throws Exception;

  /**
   * On every connection at once, {@code rounds} times: send {@code size} bytes, wait for them to
   * come back. Returns when every connection is done.
   *
   * @throws java.io.IOException if a connection fails
   */
  void run(int size, int rounds) throws Exception;

  /** Closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
