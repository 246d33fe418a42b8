package dev.sluice.bench.child;

import dev.sluice.bench.harness.Params;
import java.net.InetSocketAddress;

/**
 * Where a peer finds a measured server (server-side workloads: the peer connects): loopback, at the
 * port the measured side reported.
 */
public final class MeasuredAddress {
  /** The parameter the harness passes the measured server's port in. */
  public static final String PORT = "measuredPort";

  private MeasuredAddress() {}

  /** The measured server's loopback address from the run's params. */
  public static InetSocketAddress of(Params params) {
    return new InetSocketAddress("127.0.0.1", params.intCount(PORT));
  }

  /** Params telling a peer the measured server's port. */
  public static Params params(String port) {
    return Params.of(java.util.Map.of(PORT, port));
  }
}
