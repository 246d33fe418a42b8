package dev.sluice.bench.proxy;

import java.net.InetSocketAddress;

/**
 * What every HTTP proxy arm is configured with, the same for all: where it listens, the HTTP
 * upstream it forwards every request to, and how many client connections it must hold at once.
 * Every arm keeps an idle keep-alive connection, client side and upstream side, for {@link
 * #IDLE_TIMEOUT} (so parked connections outlive a memory reading), and writes no access log.
 *
 * @param listen the proxy's listening address (loopback)
 * @param upstream the HTTP upstream (loopback)
 * @param maxConnections client connections the proxy must hold at once
 */
public record HttpSetup(InetSocketAddress listen, InetSocketAddress upstream, int maxConnections) {

  /** Every arm's keep-alive and idle timeout, as each configuration writes it. */
  public static final String IDLE_TIMEOUT = "1h";

  /**
   * Descriptors a proxy may need: every client connection and as many upstream ones (a proxy that
   * keeps one upstream connection per client), with a margin.
   */
  public int maxFiles() {
    return 2 * maxConnections + 256;
  }
}
