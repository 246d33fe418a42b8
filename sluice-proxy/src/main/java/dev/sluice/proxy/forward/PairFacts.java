package dev.sluice.proxy.forward;

import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.proxy.route.Fingerprint;
import java.net.SocketAddress;

/**
 * What is known about one pair, as the access log and the dump print it: its addresses, what its
 * ClientHello or TLS handshake told (SNI, ALPN, JA3/JA4), the upstream it reached and how long that
 * took, and why it ended. The first stages fill it in before the client's leg is active, the pair
 * as it goes; it never changes after the pair ended. Loop thread only (the access log reads it
 * there, in the pair's last callback).
 */
public final class PairFacts {
  private final long openedNanos = System.nanoTime();
  private final long openedMillis = System.currentTimeMillis();
  private SocketAddress clientAddress;
  private SocketAddress peerAddress;
  private ProxyHeader proxyHeader;
  private String serverName;
  private String applicationProtocol;
  private Fingerprint fingerprint;
  private Pair.Upstream target;
  private long connectNanos = -1;
  private int connectAttempts;
  private Side firstEnded;
  private CloseCause cause;
  private String causeDetail;

  /**
   * The cause is an end of stream heard while the other leg was still open: what ends that leg (a
   * timeout, a reset, undeliverable bytes, the drain) says better why the pair ended.
   */
  private boolean causeProvisional;

  private String route;
  private int exchanges;

  PairFacts() {}

  // ---- addresses ----

  /**
   * The client's address: the original client's as a PROXY protocol header told it, else the peer's
   * (null until its connection is known).
   */
  public SocketAddress clientAddress() {
    return clientAddress != null ? clientAddress : peerAddress;
  }

  /**
   * Records the client's address before its leg is active, unless a PROXY protocol header named it
   * (for the access log of a refusal; the balancer's hash in tests).
   */
  public void clientAddress(SocketAddress address) {
    if (clientAddress == null) {
      clientAddress = address;
    }
    peerAddress(address);
  }

  /**
   * The address of the peer that connected: the client itself, or with a PROXY protocol header the
   * load balancer that sent it (null until the connection is known).
   */
  public SocketAddress peerAddress() {
    return peerAddress;
  }

  /** Records the peer's address (the first one told wins: first stages, refusals, the leg). */
  public void peerAddress(SocketAddress address) {
    if (peerAddress == null) {
      peerAddress = address;
    }
  }

  /** The PROXY protocol header the client's connection began with, or null. */
  public ProxyHeader proxyHeader() {
    return proxyHeader;
  }

  /**
   * Records the PROXY protocol header the connection began with: its source, when it names one, is
   * the client's address from now on (a LOCAL or UNKNOWN header leaves the peer's).
   */
  public void proxyHeader(ProxyHeader header) {
    this.proxyHeader = header;
    if (header.source() != null) {
      clientAddress = header.source();
    }
  }

  // ---- what the client's hello told ----

  /** The server name the client asked for (SNI), or null. */
  public String serverName() {
    return serverName;
  }

  /** Sets the server name (read from a passthrough ClientHello, or the TLS session's). */
  public void serverName(String name) {
    this.serverName = name;
  }

  /** The application protocol (ALPN) negotiated or offered, or null. */
  public String applicationProtocol() {
    return applicationProtocol;
  }

  /** Sets the protocol negotiated, or read from a passthrough ClientHello (the first offered). */
  public void applicationProtocol(String protocol) {
    this.applicationProtocol = protocol;
  }

  /** The client's JA3 and JA4, or null when it sent no ClientHello (plain TCP, a refusal). */
  public Fingerprint fingerprint() {
    return fingerprint;
  }

  /** Records the fingerprints of the client's ClientHello (read once, by the first stage). */
  public void fingerprint(Fingerprint fingerprint) {
    this.fingerprint = fingerprint;
  }

  // ---- the upstream and the timings ----

  /**
   * The cluster an HTTP request was routed to (the one under way, else the last), or null on the
   * raw path, whose route is the listener's.
   */
  public String route() {
    return route;
  }

  void route(String cluster) {
    this.route = cluster;
  }

  /** HTTP requests this pair carried to their end (each has its access log line), so far. */
  public int exchanges() {
    return exchanges;
  }

  void exchangeEnded() {
    exchanges++;
  }

  /** The upstream chosen (the one connected, or the last one tried), or null. */
  public Pair.Upstream target() {
    return target;
  }

  void target(Pair.Upstream upstream) {
    this.target = upstream;
  }

  /** From the first connect attempt to the upstream being up (retries included), or -1. */
  public long connectNanos() {
    return connectNanos;
  }

  /** How many connects it took (0 when none was tried). */
  public int connectAttempts() {
    return connectAttempts;
  }

  void connectAttempts(int attempts) {
    this.connectAttempts = attempts;
  }

  /** The upstream is up, {@code nanos} after the first attempt began, at the {@code attempts}th. */
  void connected(long nanos, int attempts) {
    this.connectNanos = nanos;
    this.connectAttempts = attempts;
  }

  /** Whether an upstream connection came up (the pair reached FORWARDING). */
  boolean upstreamConnected() {
    return connectNanos >= 0;
  }

  /** When the client connected (wall clock, ms). */
  public long openedMillis() {
    return openedMillis;
  }

  /** When the client connected ({@link System#nanoTime}). */
  long openedNanos() {
    return openedNanos;
  }

  /** How long the pair has lived, or lived, in ns. */
  public long ageNanos() {
    return System.nanoTime() - openedNanos;
  }

  // ---- the end ----

  /** The side that ended its output first, or null while neither has. */
  public Side firstEnded() {
    return firstEnded;
  }

  /** Records that {@code side} ended its output; true when it is the first to. */
  boolean ended(Side side) {
    if (firstEnded != null) {
      return false;
    }
    firstEnded = side;
    return true;
  }

  /** Why it ended, or null while open. */
  public CloseCause cause() {
    return cause;
  }

  /** The words behind the cause, or null. */
  public String causeDetail() {
    return causeDetail;
  }

  /** Whether the cause is still to be decided: none yet, or only a provisional end of stream. */
  boolean causeOpen() {
    return cause == null || causeProvisional;
  }

  /** Whether the cause so far is an end of stream that what ends the other leg may overrule. */
  boolean causeProvisional() {
    return causeProvisional;
  }

  /** Records {@code why} unless a cause is settled already (the first cause wins). */
  void cause(CloseCause why, String detail) {
    cause(why, detail, false);
  }

  /**
   * Records {@code why} unless a cause is settled already; a {@code provisional} one may still be
   * overruled by the next.
   */
  void cause(CloseCause why, String detail, boolean provisional) {
    if (causeOpen()) {
      cause = why;
      causeDetail = detail;
      causeProvisional = provisional;
    }
  }

  /** Records {@code why} only if no cause, not even a provisional one, is known. */
  void causeIfNone(CloseCause why, String detail) {
    if (cause == null) {
      cause = why;
      causeDetail = detail;
    }
  }

  /** The client's address, as the dump prints it after "for" when a PROXY header named it. */
  String forwardedFor() {
    return clientAddress != null && !clientAddress.equals(peerAddress)
        ? Endpoint.format(clientAddress)
        : null;
  }
}
