package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.FingerprintTlvs;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A named group of upstreams, and how connections are spread over them and kept away from the ones
 * that fail.
 *
 * @param name a label for routes, metrics and logs
 * @param upstreams where connections go, in order
 * @param balance how an upstream is picked for a new connection
 * @param healthCheck the active check, or null for none
 * @param passive ejection after consecutive failures of real connections
 * @param retries how often, and for how long, a failed connect is tried on another upstream
 * @param slowStart over how long an upstream that comes back gets its full share (zero: at once)
 * @param resolveInterval how often host names are resolved again ({@link Duration#ZERO}: once)
 * @param tls TLS to the upstreams (re-encryption), or null for plain
 * @param proxyProtocol the PROXY protocol header sent first to every upstream (and before every
 *     health check), or null for none
 * @param fingerprintTlvs the TLV types a version 2 header carries the client's JA3 and JA4 in
 */
public record ClusterConfig(
    String name,
    List<UpstreamConfig> upstreams,
    Balance balance,
    HealthCheck healthCheck,
    PassiveHealth passive,
    Retries retries,
    Duration slowStart,
    Duration resolveInterval,
    UpstreamTls tls,
    Version proxyProtocol,
    FingerprintTlvs fingerprintTlvs) {

  public ClusterConfig {
    upstreams = List.copyOf(upstreams);
  }

  /** A cluster whose version 2 headers carry the fingerprints in the default TLV types. */
  public ClusterConfig(
      String name,
      List<UpstreamConfig> upstreams,
      Balance balance,
      HealthCheck healthCheck,
      PassiveHealth passive,
      Retries retries,
      Duration slowStart,
      Duration resolveInterval,
      UpstreamTls tls,
      Version proxyProtocol) {
    this(
        name,
        upstreams,
        balance,
        healthCheck,
        passive,
        retries,
        slowStart,
        resolveInterval,
        tls,
        proxyProtocol,
        FingerprintTlvs.DEFAULTS);
  }

  /** A cluster that sends no PROXY protocol header. */
  public ClusterConfig(
      String name,
      List<UpstreamConfig> upstreams,
      Balance balance,
      HealthCheck healthCheck,
      PassiveHealth passive,
      Retries retries,
      Duration slowStart,
      Duration resolveInterval,
      UpstreamTls tls) {
    this(
        name,
        upstreams,
        balance,
        healthCheck,
        passive,
        retries,
        slowStart,
        resolveInterval,
        tls,
        null);
  }

  /** A cluster with every default: round-robin, no checks, 3 tries within 5 s. */
  public static ClusterConfig of(String name, List<UpstreamConfig> upstreams) {
    return new ClusterConfig(
        name,
        upstreams,
        Balance.ROUNDROBIN,
        null,
        PassiveHealth.DEFAULTS,
        Retries.DEFAULTS,
        Duration.ZERO,
        Duration.ZERO,
        null);
  }

  /** One upstream: its address (a host name may stand for several) and its share. */
  public record UpstreamConfig(Endpoint address, int weight) {}

  /** How an upstream is picked. */
  public enum Balance {
    /** Smooth weighted round-robin. */
    ROUNDROBIN,
    /** The fewest open connections for its weight. */
    LEASTCONN,
    /** Two picked at random by weight; the less loaded wins. */
    P2C,
    /** Consistent hashing of the client's address: a client sticks to an upstream. */
    HASH
  }

  /** What the active check does. */
  public enum CheckType {
    /** A TCP connect. */
    TCP,
    /** A TLS handshake (with the cluster's upstream TLS settings). */
    TLS,
    /** Send bytes, expect bytes back. */
    SEND
  }

  /**
   * The active health check.
   *
   * @param type what it does
   * @param interval between checks of one upstream (spread with up to a tenth of jitter)
   * @param timeout for one check
   * @param rise consecutive passes that bring a down upstream up
   * @param fall consecutive failures that bring an up upstream down
   * @param send the bytes sent by a {@code send} check
   * @param expect the bytes a {@code send} check expects at the start of the reply
   */
  public record HealthCheck(
      CheckType type,
      Duration interval,
      Duration timeout,
      int rise,
      int fall,
      String send,
      String expect) {}

  /**
   * Passive ejection: an upstream whose real connections fail this many times in a row (a connect
   * refused or timed out, an upstream TLS handshake that failed, a reset before any byte moved
   * either way) is out for {@code backoff}, doubled for every further ejection up to {@code
   * maxBackoff}; it comes back through the active check (or, without one, when the time is up). A
   * reset after the client sent bytes is not counted: a client's request could provoke it.
   *
   * @param maxEjectedPercent the most of a cluster's upstreams passive ejection may take out of
   *     service, rounded down; it never takes the last available one (see {@link #minInService})
   */
  public record PassiveHealth(
      int failures, Duration backoff, Duration maxBackoff, int maxEjectedPercent) {
    /** The default share passive ejection may take out: half of a cluster. */
    public static final int DEFAULT_MAX_EJECTED_PERCENT = 50;

    public static final PassiveHealth DEFAULTS =
        new PassiveHealth(3, Duration.ofSeconds(5), Duration.ofMinutes(1));

    public PassiveHealth {
      if (maxEjectedPercent < 0 || maxEjectedPercent > 100) {
        throw new IllegalArgumentException(
            "maxEjectedPercent must be 0..100, not " + maxEjectedPercent);
      }
    }

    /** With the default share of upstreams that may be ejected. */
    public PassiveHealth(int failures, Duration backoff, Duration maxBackoff) {
      this(failures, backoff, maxBackoff, DEFAULT_MAX_EJECTED_PERCENT);
    }

    /**
     * How many of {@code upstreams} passive ejection keeps available: {@code ceil(upstreams x (100
     * - maxEjectedPercent) / 100)}, and at least one (with one upstream, or 100%, it never leaves
     * the cluster empty: a cluster that rejects every client for a while is worse than one that
     * tries its last upstream).
     */
    public int minInService(int upstreams) {
      int kept = (upstreams * (100 - maxEjectedPercent) + 99) / 100;
      return Math.max(1, Math.min(upstreams, kept));
    }
  }

  /**
   * Connect retries: a connect that is refused or times out (or whose upstream TLS handshake fails
   * or times out) is tried on another upstream, at most {@code tries} connects in all; a failed
   * connect is retried when it started within {@code within} of the first ({@link Duration#ZERO}:
   * no limit), so a client waits at most {@code within} plus one connect. Nothing was sent to the
   * client yet, so this is safe.
   */
  public record Retries(int tries, Duration within) {
    public static final Retries DEFAULTS = new Retries(3, Duration.ofSeconds(5));
  }

  /**
   * TLS to the upstreams.
   *
   * @param ca the authorities the upstreams' certificates must chain to; null for the JDK's
   * @param serverName the name sent as SNI and verified; null for the upstream's host
   * @param alpn protocols to offer
   * @param certificate the client certificate to present (mTLS), or null
   * @param handshakeTimeout how long the TLS handshake may take once the TCP connect is up; one
   *     that times out is retried on another upstream like a connect that does ({@link
   *     Duration#ZERO}: no limit)
   * @param engine the TLS implementation ({@code auto}: the JDK for a client)
   * @param sessionCacheSize how many upstreams' sessions are kept to resume (one per upstream
   *     address and name sent), the least recently used dropped beyond; 0: none, OpenSSL only
   */
  public record UpstreamTls(
      Path ca,
      String serverName,
      List<String> alpn,
      ListenerTls.Certificate certificate,
      Duration handshakeTimeout,
      dev.sluice.tls.TlsEngineKind engine,
      int sessionCacheSize) {
    /** The default handshake timeout, as for a client's handshake with a listener. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    /** The most sessions a cluster may keep: each is a few KB of C or Java heap. */
    public static final int MAX_SESSION_CACHE_SIZE = 1_000_000;

    public UpstreamTls {
      alpn = List.copyOf(alpn);
      java.util.Objects.requireNonNull(engine, "engine");
      if (sessionCacheSize < 0 || sessionCacheSize > MAX_SESSION_CACHE_SIZE) {
        throw new IllegalArgumentException("a session cache of " + sessionCacheSize);
      }
    }

    /** On the default engine ({@link dev.sluice.tls.TlsEngineKind#defaultKind()}). */
    public UpstreamTls(
        Path ca,
        String serverName,
        List<String> alpn,
        ListenerTls.Certificate certificate,
        Duration handshakeTimeout) {
      this(
          ca,
          serverName,
          alpn,
          certificate,
          handshakeTimeout,
          dev.sluice.tls.TlsEngineKind.defaultKind(),
          dev.sluice.tls.TlsClient.DEFAULT_SESSION_CACHE_SIZE);
    }

    /** The files it is read from: the CA and the client certificate's (to watch, and compare). */
    public List<Path> files() {
      List<Path> files = new java.util.ArrayList<>();
      if (ca != null) {
        files.add(ca);
      }
      if (certificate != null) {
        files.addAll(certificate.files());
      }
      return List.copyOf(files);
    }

    /** With the default handshake timeout. */
    public UpstreamTls(
        Path ca, String serverName, List<String> alpn, ListenerTls.Certificate certificate) {
      this(ca, serverName, alpn, certificate, DEFAULT_HANDSHAKE_TIMEOUT);
    }
  }
}
