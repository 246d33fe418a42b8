package dev.sluice.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback port free when asked, for a peer that must be told where to listen before it starts
 * (and cannot report a port it picked itself), or for a connection that must find nobody there.
 *
 * <p>The port lies below the kernel's ephemeral range. A port the kernel picks for a probe comes
 * from that range, and once the probe closes, the next outgoing connection may take it as its local
 * port; the peer then fails to bind it ("Address already in use"), or a connection meant to be
 * refused reaches a socket. Below the range only a listener that binds it by number can take it.
 */
public final class FreePorts {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 10_000;
  private static final int ATTEMPTS = 200;

  private FreePorts() {}

  public static int loopback() throws IOException {
    int below = ephemeralLow();
    for (int i = 0; below - LOWEST >= 1_000 && i < ATTEMPTS; i++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (BindException taken) {
        // try another
      }
    }
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort(); // no room below the range (or not Linux): the kernel's pick
    }
  }

  /** The lowest ephemeral port, as the kernel has it now. */
  static int ephemeralLow() {
    // Read line by line: Files.readString gives a /proc/sys file's first byte alone ("3"), which
    // put every probe port in the ephemeral range, where this class exists to keep them out of.
    try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE)) {
      return Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException unknown) {
      return 32_768; // Linux's default
    }
  }
}
