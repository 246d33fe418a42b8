package dev.sluice.proxy.http;

import java.util.Locale;

/**
 * One routing rule of an HTTP listener: requests for {@code host} (exact, or {@code *.suffix} for
 * any name under a suffix, not the suffix itself; any host when null) whose path begins with {@code
 * pathPrefix} (any path when null) go to {@code cluster}. Hosts compare ignoring case, the port and
 * a trailing dot; the path compares as sent (case-sensitive, not decoded), without the query.
 *
 * @param host the host as configured, in lower case
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
    if (cluster == null || cluster.isBlank()) {
      throw new IllegalArgumentException("a route needs a cluster");
    }
  }

  /** Whether a request for {@code requestHost} (normalized, see {@link Authority#host}) matches. */
  boolean matches(String requestHost, String path) {
    return hostMatches(requestHost) && (pathPrefix == null || pathOf(path).startsWith(pathPrefix));
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

  private static String pathOf(String target) {
    int query = target.indexOf('?');
    return query < 0 ? target : target.substring(0, query);
  }
}
