package dev.sluice.bench.workload.tlsthroughput;

/**
 * One implementation's side of tlsthroughput: a TLS server on loopback whose every connection sends
 * what its client asks for, with {@link PatternSender}, and then ends its output with close_notify.
 */
interface TlsSenderServer extends AutoCloseable {

  /** The port it listens on. */
  int port();

  /** The TLS library that encrypts, as the report names it. */
  String tlsLibrary();

  /** Stops listening, closes every connection and stops the implementation's threads. */
  @Override
  void close();
}
