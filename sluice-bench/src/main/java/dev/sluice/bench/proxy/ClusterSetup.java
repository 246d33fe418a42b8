package dev.sluice.bench.proxy;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * A cluster of several upstreams behind the proxy and how both health-checking arms (Sluice and
 * HAProxy) are told to watch it, with the same parameters: round-robin balancing, an active TCP
 * check every {@code interval} (a connect, nothing sent), {@code rise} passes to come up and {@code
 * fall} failures to go down, {@code retries} connect retries on another upstream, and passive
 * ejection after {@code passiveFailures} consecutive failed connects (0: none).
 *
 * @param upstreams the upstreams, in order (loopback)
 * @param interval between two checks of one upstream
 * @param timeout for one check
 * @param rise consecutive passes that bring a down upstream up
 * @param fall consecutive failures that take an up upstream down
 * @param retries connect retries after the first attempt, each on another upstream
 * @param passiveFailures consecutive failed connects of real traffic that take an upstream out (0:
 *     no passive ejection)
 * @param admin where Sluice's admin listener listens (its {@code /metrics.json} gives each
 *     upstream's state); HAProxy's state comes from its stats socket
 */
public record ClusterSetup(
    List<InetSocketAddress> upstreams,
    Duration interval,
    Duration timeout,
    int rise,
    int fall,
    int retries,
    int passiveFailures,
    InetSocketAddress admin) {

  public ClusterSetup {
    upstreams = List.copyOf(upstreams);
    if (upstreams.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs an upstream");
    }
  }

  /** The name both arms give upstream {@code index} ({@code u0}, {@code u1}, ...). */
  public static String serverName(int index) {
    return "u" + index;
  }
}
