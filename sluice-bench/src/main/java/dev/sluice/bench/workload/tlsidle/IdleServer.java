package dev.sluice.bench.workload.tlsidle;

/**
 * One implementation's side of tlsidle: an echo server on loopback, TLS or plain, that counts its
 * open connections.
 */
interface IdleServer extends AutoCloseable {

  /** The port it listens on. */
  int port();

  /** The TLS library the arm runs on, as the report names it; null for plain TCP. */
  String tlsLibrary();

  /** Connections open now (for TLS: past the handshake, with the expected suite). */
  int openConnections();

  /** Native memory the implementation holds now, by its own accounting. */
  long nativeBytes();

  /** Stops listening, closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
