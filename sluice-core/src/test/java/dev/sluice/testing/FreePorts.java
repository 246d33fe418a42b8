package dev.sluice.proxy.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A loopback port free when asked, for a peer that must be told where to listen before it starts
 * (and cannot report a port it picked itself).
 */
public final class FreePorts {
  private FreePorts() {}

  public static int loopback() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }
}
