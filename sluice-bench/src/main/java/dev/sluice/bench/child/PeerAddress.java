package dev.sluice.bench.child;

import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import java.net.InetSocketAddress;

/** Where the measured side finds its peer: loopback, at the port the peer reported. */
public final class PeerAddress {
  /** The parameter the harness passes the peer's port in. */
  public static final String PORT = RunContext.PEER_PORT;

  private PeerAddress() {}

  /** The peer's loopback address from the run's params. */
  public static InetSocketAddress of(Params params) {
    return new InetSocketAddress("127.0.0.1", params.intCount(PORT));
  }
}
