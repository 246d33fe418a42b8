package dev.sluice.proxy.config;

/**
 * One listener: where it binds, what its clients speak, where their connections go.
 *
 * @param name a label for metrics and logs
 * @param address TCP host:port or a Unix socket
 * @param route the cluster, or the rules that pick one by the client's server name (SNI)
 * @param tls TLS termination or passthrough; null for plain TCP
 * @param maxConnections the most pairs open at once through this listener; 0 for no limit
 * @param timeouts the timeouts of its pairs (the global ones with this listener's overrides)
 * @param reads the read sizes of its pairs (likewise)
 * @param limits what it refuses at once (rates, per-address limits, networks, clients without SNI)
 * @param proxyProtocol the PROXY protocol headers its clients begin with, or null for none
 * @param http the HTTP/1 path's settings ({@code protocol: http}), or null for the raw TCP pipe
 */
public record ListenerConfig(
    String name,
    Endpoint address,
    Route route,
    ListenerTls tls,
    int maxConnections,
    TimeoutSettings timeouts,
    ReadSizes reads,
    Limits limits,
    ListenerProxyProtocol proxyProtocol,
    ListenerHttp http) {

  /** A raw TCP listener. */
  public ListenerConfig(
      String name,
      Endpoint address,
      Route route,
      ListenerTls tls,
      int maxConnections,
      TimeoutSettings timeouts,
      ReadSizes reads,
      Limits limits,
      ListenerProxyProtocol proxyProtocol) {
    this(name, address, route, tls, maxConnections, timeouts, reads, limits, proxyProtocol, null);
  }

  /** A raw TCP listener without PROXY protocol headers. */
  public ListenerConfig(
      String name,
      Endpoint address,
      Route route,
      ListenerTls tls,
      int maxConnections,
      TimeoutSettings timeouts,
      ReadSizes reads,
      Limits limits) {
    this(name, address, route, tls, maxConnections, timeouts, reads, limits, null, null);
  }
}
