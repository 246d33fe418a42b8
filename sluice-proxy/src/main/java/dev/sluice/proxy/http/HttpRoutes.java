package dev.sluice.proxy.http;

import java.util.List;

/**
 * An HTTP listener's routing: the first rule that matches a request names its cluster; none
 * matching, the listener's own cluster. Each request is routed on its own, so one client connection
 * may reach two clusters in turn.
 */
public record HttpRoutes(List<HttpRoute> rules, String defaultCluster) {
  public HttpRoutes {
    rules = List.copyOf(rules);
    if (defaultCluster == null || defaultCluster.isBlank()) {
      throw new IllegalArgumentException("an HTTP listener needs a cluster for unmatched requests");
    }
  }

  /** The cluster for a request to {@code authority} (host[:port]) with this path (or target). */
  public String clusterFor(String authority, String path) {
    String host = Authority.host(authority);
    String routingPath = RoutingPath.of(path);
    for (HttpRoute rule : rules) {
      if (rule.matches(host, routingPath)) {
        return rule.cluster();
      }
    }
    return defaultCluster;
  }

  /** The cluster for a parsed request. */
  public String clusterFor(RequestHead request) {
    return clusterFor(request.authority(), request.path());
  }
}
