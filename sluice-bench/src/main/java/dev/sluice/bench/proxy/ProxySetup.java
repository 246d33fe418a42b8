package dev.sluice.bench.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * What every proxy arm is configured with, the same for all: where it listens, the echo upstream it
 * forwards to, TLS termination or not, how many connections it must hold at once, and Sluice's read
 * buffer size (the other arms keep their own defaults: Netty's adaptive reads up to 64 KiB,
 * HAProxy's 16 KiB bufsize).
 *
 * @param listen the proxy's listening address (loopback)
 * @param upstream the echo upstream (loopback)
 * @param tls the certificate files when the proxy terminates TLS, else null
 * @param maxConnections client connections the proxy must hold at once (HAProxy's maxconn)
 * @param readBufferSize Sluice's {@code buffers.readBufferSize}
 * @param tlsEngine Sluice's {@code tls.engine} ({@code auto}, {@code openssl}, {@code jdk}), or
 *     null to leave the key out of its configuration (the proxy's own default)
 * @param splice Sluice's {@code splice} ({@code auto}, {@code off}), or null to leave it out
 */
public record ProxySetup(
    InetSocketAddress listen,
    InetSocketAddress upstream,
    PemFiles tls,
    int maxConnections,
    long readBufferSize,
    String tlsEngine,
    String splice) {

  /** A setup that leaves Sluice's splicing to the proxy's default. */
  public ProxySetup(
      InetSocketAddress listen,
      InetSocketAddress upstream,
      PemFiles tls,
      int maxConnections,
      long readBufferSize,
      String tlsEngine) {
    this(listen, upstream, tls, maxConnections, readBufferSize, tlsEngine, null);
  }

  /** A setup that leaves Sluice's TLS engine to the proxy's default. */
  public ProxySetup(
      InetSocketAddress listen,
      InetSocketAddress upstream,
      PemFiles tls,
      int maxConnections,
      long readBufferSize) {
    this(listen, upstream, tls, maxConnections, readBufferSize, null, null);
  }

  /**
   * Connections HAProxy's {@code maxconn} allows beyond the run's own: the harness's readiness
   * probe and connections still closing.
   */
  public static final int MAXCONN_MARGIN = 16;

  /** Sluice's {@code buffers.maxBytesInFlight}. */
  public static final long MAX_BYTES_IN_FLIGHT = 256L << 20;

  /** A loopback address on a port that was free a moment ago. */
  public static InetSocketAddress freeLoopbackAddress() throws IOException {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    try (ServerSocket probe = new ServerSocket(0, 1, loopback)) {
      return new InetSocketAddress(loopback, probe.getLocalPort());
    }
  }

  /** {@code host:port}, as every arm's configuration writes an address. */
  static String hostPort(InetSocketAddress address) {
    return address.getAddress().getHostAddress() + ":" + address.getPort();
  }
}
