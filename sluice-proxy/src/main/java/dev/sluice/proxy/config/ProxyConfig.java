package dev.sluice.proxy.config;

import dev.sluice.net.Transport;
import java.util.List;
import java.util.Optional;

/**
 * A whole, validated proxy configuration: what {@link ConfigReader} makes of one YAML file.
 *
 * @param listeners where clients connect, and where their connections go
 * @param clusters named groups of upstreams
 * @param maxBytesInFlight the most bytes the whole proxy holds in pending copies
 * @param drainTimeout how long a graceful shutdown lets pairs finish before closing them
 * @param admin the admin listener (metrics, status page, readiness), or null for none
 * @param accessLog where a line per closed pair (and per HTTP request) goes, or null for nowhere
 * @param source where it was read from (a file, or {@code <embedded>})
 * @param transport the event loops' transport (auto, epoll or nio); fixed at start
 * @param splice whether the raw relay may splice (auto or off); fixed at start
 */
public record ProxyConfig(
    List<ListenerConfig> listeners,
    List<ClusterConfig> clusters,
    long maxBytesInFlight,
    java.time.Duration drainTimeout,
    AdminConfig admin,
    AccessLogTarget accessLog,
    String source,
    Transport transport,
    SpliceMode splice) {

  public ProxyConfig {
    listeners = List.copyOf(listeners);
    clusters = List.copyOf(clusters);
  }

  /** A configuration on the automatic transport choice, splicing where it can. */
  public ProxyConfig(
      List<ListenerConfig> listeners,
      List<ClusterConfig> clusters,
      long maxBytesInFlight,
      java.time.Duration drainTimeout,
      AdminConfig admin,
      AccessLogTarget accessLog,
      String source) {
    this(
        listeners,
        clusters,
        maxBytesInFlight,
        drainTimeout,
        admin,
        accessLog,
        source,
        Transport.AUTO,
        SpliceMode.AUTO);
  }

  /** The cluster of that name. */
  public Optional<ClusterConfig> cluster(String name) {
    return clusters.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
