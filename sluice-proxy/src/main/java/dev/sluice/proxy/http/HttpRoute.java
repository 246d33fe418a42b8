package dev.sluice.proxy.http;

import java.util.Locale;

/**
 * One routing rule of an HTTP listener: requests for {@code host} (exact, or {@code *.suffix} for
 * any name under a suffix, not the suffix itself; any host when null) whose path begins with {@code
 * pathPrefix} (any path when null) go to {@code cluster}. Hosts compare ignoring case, the port and
 * a trailing dot; the path compares case-sensitively, as an upstream would read it ({@link
 * RoutingPath}: without the query, dot segments removed, slashes merged, unreserved characters
 * decoded). The prefix is normalized the same way.
 *
 * @param host the host as configured, in lower case
 * @param pathPrefix the prefix, normalized
 */
public record HttpRoute(String host, String pathPrefix, String cluster) {
  public HttpRoute {
    if (host == null && pathPrefix == null) {
      throw new IllegalArgumentException("a route needs a host or a pathPrefix");
    }
    if (host != null) {
      boolean wildcard = host.startsWith("*.");
      String name = wildcard ? host.substring(2) : host;
      if (name.isEmpty()
          || name.endsWith(".")
          || name.contains("*")
          || !Authority.valid(name, false)
          || !Authority.host(name).equals(name.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "the route host '" + host + "' is not a host name or *.suffix (no port, no scheme)");
      }
      host = host.toLowerCase(Locale.ROOT);
    }
    if (pathPrefix != null && !pathPrefix.startsWith("/")) {
      throw new IllegalArgumentException(
          "the route pathPrefix '" + pathPrefix + "' must begin with /");
    }
    if (pathPrefix != null) {
      boolean directory = pathPrefix.endsWith("/");
      pathPrefix = RoutingPath.of(pathPrefix);
      if (!directory && pathPrefix.length() > 1 && pathPrefix.endsWith("/")) {
        pathPrefix = pathPrefix.substring(0, pathPrefix.length() - 1); // "/a/." is "/a"
      }
    }
    if (cluster == null || cluster.isBlank()) {
      throw new IllegalArgumentException("a route needs a cluster");
    }
  }

  /**
   * Whether a request for {@code requestHost} (normalized, see {@link Authority#host}) with this
   * {@link RoutingPath} matches.
   */
  boolean matches(String requestHost, String routingPath) {
    return hostMatches(requestHost) && (pathPrefix == null || routingPath.startsWith(pathPrefix));
  }

  private boolean hostMatches(String requestHost) {
    if (host == null) {
      return true;
    }
    if (host.startsWith("*.")) {
      int suffix = host.length() - 1; // ".example.com"
      return requestHost.length() > suffix
          && requestHost.regionMatches(requestHost.length() - suffix, host, 1, suffix);
    }
    return requestHost.equals(host);
  }
}
