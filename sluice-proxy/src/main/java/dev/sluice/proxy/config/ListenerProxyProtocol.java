package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * PROXY protocol headers on a listener: the load balancers in front tell who the client really was.
 *
 * <p>By default (as HAProxy's {@code accept-proxy}) the listener sits behind those load balancers
 * alone: only a trusted source may connect at all, and every connection must begin with a header.
 * With {@code optional} the listener also takes direct clients: a trusted source may send a header
 * or not, anyone else connects as themselves, and a peer that is not trusted but begins with a
 * header is refused (it would be claiming another client's address).
 *
 * @param trustedSources the networks of the load balancers that send headers (Unix socket peers are
 *     trusted: the socket file's permissions say who may connect)
 * @param timeout how long a header may take to arrive ({@link Duration#ZERO}: no limit)
 * @param versions the versions accepted
 * @param maxHeaderBytes the longest v2 header accepted (v1 lines are at most 107 bytes)
 * @param optional whether connections without a header are taken too (see above)
 */
public record ListenerProxyProtocol(
    List<Cidr> trustedSources,
    Duration timeout,
    Set<Version> versions,
    int maxHeaderBytes,
    boolean optional) {

  /** The time a header may take by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The longest v2 header accepted by default. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 4096;

  public ListenerProxyProtocol {
    trustedSources = List.copyOf(trustedSources);
    versions = Set.copyOf(versions);
  }
}
