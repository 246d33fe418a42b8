package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * PROXY protocol headers on a listener: every connection from a trusted source must begin with one
 * (the load balancer in front tells who the client really was); connections from anywhere else are
 * refused, since a listener that expects headers sits behind a load balancer.
 *
 * @param trustedSources the networks of the load balancers that send headers (Unix socket peers are
 *     trusted: the socket file's permissions say who may connect)
 * @param timeout how long a header may take to arrive ({@link Duration#ZERO}: no limit)
 * @param versions the versions accepted
 * @param maxHeaderBytes the longest v2 header accepted (v1 lines are at most 107 bytes)
 */
public record ListenerProxyProtocol(
    List<Cidr> trustedSources, Duration timeout, Set<Version> versions, int maxHeaderBytes) {

  /** The time a header may take by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The longest v2 header accepted by default. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 4096;

  public ListenerProxyProtocol {
    trustedSources = List.copyOf(trustedSources);
    versions = Set.copyOf(versions);
  }
}
