package dev.sluice.proxy.forward;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.Connection;
import dev.sluice.net.SocketOptions;
import dev.sluice.proxy.config.ReadSizes;
import dev.sluice.proxy.config.TimeoutSettings;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsConnection;
import java.net.SocketAddress;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLSession;

/**
 * One proxied connection: a client's leg and an upstream's, both on the client's loop, joined by a
 * {@link Relay} (the raw pipe unless the owner says otherwise). The client's leg starts the relay
 * once it is in (after its TLS handshake, or once a passthrough ClientHello named its server); the
 * relay says when to connect the upstream ({@link UpstreamConnect}). The pair forwards with
 * backpressure both ways, half-closes each direction on its own, resets the other leg at once when
 * one resets, and ends with exactly one {@link CloseCause}. What is known about it is in its {@link
 * PairFacts}, its timeouts in {@link PairTimeouts}, where it is in its life in {@link PairState}.
 * Loop thread only.
 */
public final class Pair {

  /** What a pair needs from the listener it came in on. */
  public interface Owner {
    /** The listener's name, for dumps and logs. */
    String name();

    /** The listener's draw on the proxy-wide bound on bytes in pending copies. */
    InFlightBudget.Share budget();

    /** The listener's timeouts now (a reload may change them for established pairs too). */
    TimeoutSettings timeouts();

    /** The listener's read sizes now (likewise). */
    ReadSizes reads();

    /**
     * Where {@code pair} connects next (its server name may be known), avoiding the upstreams it
     * has {@code tried} already.
     */
    UpstreamChoice choose(Pair pair, List<Upstream> tried);

    /**
     * Options for connecting to upstreams, with the connect timeout of {@link #timeouts()}: one
     * object for every pair, which the upstream connection keeps.
     */
    SocketOptions upstreamOptions();

    /** Whether TLS clients that send no server name are refused. */
    default boolean requireSni() {
      return false;
    }

    /**
     * The listener's HTTP settings now, or null for a tcp listener: a reload's routes and header
     * rules reach established HTTP connections at their next request.
     */
    default dev.sluice.proxy.config.ListenerHttp http() {
      return null;
    }

    /** The relay for {@code pair}, asked once its client's leg is active: the raw pipe. */
    default Relay relay(Pair pair) {
      return RawRelay.INSTANCE;
    }

    /** The pair began forwarding. */
    default void onForwarding(Pair pair) {}

    /** A leg read {@code bytes} from its side (for live byte counters: runs on the loop). */
    default void onBytesRead(Side side, int bytes) {}

    /** The client's TLS handshake finished: a full one, or one that resumed a session. */
    default void onTlsHandshake(boolean resumed) {}

    /**
     * An HTTP request on {@code pair} ended: its response went to the client, the proxy answered
     * it, a 101 made the connection a tunnel, or the pair ended midway ({@link
     * ExchangeRecord#cause}). Once per request, on the loop; the record does not change after.
     */
    default void onHttpExchange(Pair pair, ExchangeRecord exchange) {}

    /** The pair ended, for good: counters, the access log. Called exactly once per pair. */
    void onClosed(Pair pair);
  }

  /** Where a pair's upstream leg goes, and what hears of the connect's outcome. */
  public interface Upstream {
    SocketAddress address();

    /** A label for logs and metrics. */
    String name();

    /** The most connects a pair makes (to this upstream's cluster) before it gives up. */
    default int maxTries() {
      return 1;
    }

    /**
     * A failed connect is tried again only if it started within this of the pair's first connect
     * (0: no limit; {@link #maxTries} still bounds them).
     */
    default long triesWithinNanos() {
      return 0;
    }

    /** The TLS client to reach it with, or null for plain TCP. */
    default TlsClient tls() {
      return null;
    }

    /** The name sent as SNI and verified, with TLS. */
    default String tlsServerName() {
      return null;
    }

    /**
     * The PROXY protocol header version it expects first on every connection (the original client's
     * addresses, and with v2 what TLS told), or null for none.
     */
    default ProxyHeader.Version proxyProtocol() {
      return null;
    }

    /** The TLV types a version 2 header carries the client's fingerprints in. */
    default dev.sluice.proxy.proxyprotocol.FingerprintTlvs fingerprintTlvs() {
      return dev.sluice.proxy.proxyprotocol.FingerprintTlvs.DEFAULTS;
    }

    /** A pair connected to it. */
    default void connected() {}

    /** A connect to it failed. */
    default void connectFailed(CloseCause cause, String detail) {}

    /**
     * A pair connected to it ended with {@code cause}; {@code quiet} when no byte had moved either
     * way and the client had not ended its side (so nothing the client sent can have caused it).
     */
    default void released(CloseCause cause, boolean quiet) {}

    /** A pair connected to it read {@code bytes} from {@code side}. */
    default void bytesRead(Side side, int bytes) {}

    /**
     * A pair's connection to it finished its exchange and went idle into a pool: it no longer
     * serves the pair (in place of {@link #released}).
     */
    default void parked() {}

    /** An idle connection to it left the pool: {@code reused} by a pair, else closed. */
    default void unparked(boolean reused) {}
  }

  private final Owner owner;
  private final Leg client = new Leg(this, Side.CLIENT);

  /** The upstream's leg: a new one for each connection an HTTP relay's requests go out on. */
  private Leg upstream = new Leg(this, Side.UPSTREAM);

  private final PairFacts facts = new PairFacts();
  private final PairTimeouts timeouts = new PairTimeouts(this);
  private PairState state = PairState.OPENING;
  private Relay relay = RawRelay.INSTANCE;

  /** The connect under way, or null: a pair holds one only while it connects. */
  private UpstreamConnect connect;

  /** The upstream whose connection the upstream leg holds (counted active there), or null. */
  private Upstream serving;

  /** Whether the upstream leg's connection came from a pool of idle ones. */
  private boolean upstreamReused;

  private Runnable onEnd;

  // The loop's registry of open pairs is an intrusive list.
  Pair prev;
  Pair next;
  private PairRegistry registry;

  public Pair(Owner owner) {
    this.owner = owner;
  }

  // ---- accessors (loop thread) ----

  /** The client's leg: the handler to give the accepted connection (or its TLS layer). */
  public Leg client() {
    return client;
  }

  /** The upstream's leg. */
  public Leg upstream() {
    return upstream;
  }

  /** What is known about it: addresses, SNI, ALPN, fingerprints, upstream, timings, cause. */
  public PairFacts facts() {
    return facts;
  }

  /** Why it ended, or null while open. */
  public CloseCause cause() {
    return facts.cause();
  }

  /** The words behind the cause, or null. */
  public String causeDetail() {
    return facts.causeDetail();
  }

  /** Whether the pair is under way (not closing or closed). */
  public boolean isOpen() {
    return state.isOpen();
  }

  /** A one-line state for dumps. */
  public String state() {
    return state.label();
  }

  /** The name of the listener it came in on. */
  public String listenerName() {
    return owner.name();
  }

  /** The address the client connected to: the header's destination, else the listener's. */
  public SocketAddress destinationAddress() {
    ProxyHeader header = facts.proxyHeader();
    if (header != null && header.destination() != null) {
      return header.destination();
    }
    return client.connection() == null ? null : client.connection().localAddress();
  }

  Leg leg(Side side) {
    return side == Side.CLIENT ? client : upstream;
  }

  Owner owner() {
    return owner;
  }

  InFlightBudget.Share budget() {
    return owner.budget();
  }

  Relay relay() {
    return relay;
  }

  /**
   * From now on {@code next} relays this pair's reads (an HTTP relay hands an upgraded connection
   * to the raw one).
   */
  void relay(Relay next) {
    this.relay = next;
  }

  boolean forwarding() {
    return state == PairState.FORWARDING;
  }

  /** Whether its timeouts run: from forwarding to the end, as long as an upstream came up. */
  boolean timed() {
    return state == PairState.FORWARDING
        || (state == PairState.CLOSING
            && facts.upstreamConnected()
            && upstream.connection() != null);
  }

  /** A leg read {@code bytes}: the live counters hear of it. */
  void countRead(Side side, int bytes) {
    owner.onBytesRead(side, bytes);
    Upstream target = facts.target();
    if (target != null) {
      target.bytesRead(side, bytes);
    }
  }

  // ---- the legs' events ----

  void onLegActive(Leg leg) {
    Connection c = leg.connection();
    if (leg == client) {
      onClientActive(c);
    } else {
      onUpstreamActive(c);
    }
  }

  private void onClientActive(Connection c) {
    facts.peerAddress(c.remoteAddress());
    registry = PairRegistry.of(c.loop());
    registry.add(this);
    c.setMaxReadBytes(budget().pairReadLimit(owner.reads().client()));
    if (c instanceof TlsConnection tls) {
      facts.serverName(requestedServerName(tls.session()));
      facts.applicationProtocol(tls.applicationProtocol());
      owner.onTlsHandshake(resumedSession(tls.session(), facts.openedMillis()));
    }
    c.pauseReading(); // until the relay wants its bytes: they wait in the socket
    if (facts.serverName() == null && owner.requireSni()) {
      close(CloseCause.SNI_REQUIRED, "the client sent no server name", false);
      return;
    }
    relay = owner.relay(this);
    relay.start(this);
  }

  /** Whether a handshake that began after {@code acceptedMillis} resumed {@code session}. */
  static boolean resumedSession(javax.net.ssl.SSLSession session, long acceptedMillis) {
    return dev.sluice.tls.Resumption.resumed(session, acceptedMillis);
  }

  /**
   * Connects the upstream leg (the owner's route and balancer, its retries); a failure for good
   * closes the pair with its cause.
   */
  void connectUpstream() {
    connectUpstream(null);
  }

  /**
   * Connects the upstream leg, or hands it an idle connection from {@code pool} to the upstream
   * chosen (an HTTP relay's request; null: always a new connect).
   */
  void connectUpstream(IdleUpstreams pool) {
    connect = new UpstreamConnect(this, owner::choose, upstream, new ConnectOutcome(), pool);
    connect.start();
  }

  /** How the raw path's connect ends when it fails: the pair closes with the cause. */
  private final class ConnectOutcome implements UpstreamConnect.Outcome {
    @Override
    public boolean wanted() {
      return state == PairState.CONNECTING;
    }

    @Override
    public void failed(CloseCause cause, String detail, boolean reset) {
      relay.onConnectFailed(Pair.this, cause, detail, reset);
    }
  }

  /** A connect attempt is going out. */
  void connectStarted() {
    state = PairState.CONNECTING;
  }

  private void onUpstreamActive(Connection c) {
    Upstream target = facts.target();
    boolean reused = connect != null && connect.reused();
    if (!reused) {
      target.connected(); // a pooled connection was counted again as it left the pool
    }
    if (state != PairState.CONNECTING) {
      target.released(CloseCause.CLIENT_EOF, true);
      c.close(); // the client went away while we connected
      return;
    }
    c.setMaxReadBytes(budget().pairReadLimit(owner.reads().upstream()));
    connect.succeeded();
    connect = null;
    serving = target;
    upstreamReused = reused;
    state = PairState.FORWARDING;
    owner.onForwarding(this);
    relay.onUpstreamActive(this);
    timeouts.schedule();
  }

  void onLegEnded(Leg leg) {
    // An upstream that serves one exchange ends it for the relay, not for the pair.
    boolean pairs = leg == client || !relay.upstreamPerExchange();
    if (pairs && facts.ended(leg.side())) {
      timeouts.schedule();
    }
    relay.onEnded(leg);
  }

  void onLegClosed(Leg leg, CloseReason reason) {
    if (leg == upstream
        && state.isOpen()
        && relay.upstreamPerExchange()
        && relay.onUpstreamLost(this, classify(leg.side(), reason), detail(reason))) {
      return; // the relay goes on without that connection (it answers, or tries another)
    }
    Connection otherConnection = leg.peer().connection();
    boolean otherOpen = otherConnection != null && otherConnection.isOpen();
    facts.cause(
        classify(leg.side(), reason),
        detail(reason),
        otherOpen && reason instanceof CloseReason.Normal);
    if (otherOpen && !(reason instanceof CloseReason.Normal)) {
      otherConnection.reset(); // a reset, an error, a timeout on one leg ends the pair at once
    }
    if (state.isOpen()) {
      state = PairState.CLOSING;
    }
    if (otherOpen && reason instanceof CloseReason.Normal) {
      // Both directions finished on that leg (with TLS 1.2 its close_notify closes both at once).
      // The other may only end now: whatever it still sends can go nowhere (it is reset), and
      // the half-close and idle timeouts keep judging it, so it cannot linger in CLOSING.
      timeouts.schedule();
    }
    finishIfDone();
  }

  /**
   * Bytes read from {@code from} can reach no one (its peer closed, or the write to it failed): its
   * sender must not take the loss for a clean end, so that leg is reset, once it has what is still
   * pending for it (the write-stall timeout bounds that wait).
   */
  void undeliverable(Leg from) {
    String what =
        side(from.side()) + "'s bytes could not be delivered: the " + side(from.side().other());
    facts.cause(
        CloseCause.UNDELIVERABLE,
        what + (facts.causeProvisional() ? " had closed" : " could take no more"));
    Connection c = from.connection();
    if (c != null && c.isOpen()) {
      if (c.pendingWriteBytes() > 0) {
        from.resetOnceDrained(); // first the bytes it is owed (a response before close_notify)
      } else {
        c.reset();
      }
    }
  }

  // ---- an HTTP relay's upstream, one exchange at a time ----

  /**
   * Whether the upstream leg's connection may change hands now: nothing either way is pending at or
   * held for either leg, and it is open and has not ended.
   */
  boolean upstreamQuiet() {
    Connection c = upstream.connection();
    return c != null && c.isOpen() && !upstream.ended() && settled();
  }

  /** Whether nothing is pending either way (what was written has been taken by the sockets). */
  boolean settled() {
    return client.settled() && upstream.settled();
  }

  /**
   * The upstream leg's exchange is over: its connection goes idle into {@code pool} (when {@code
   * settings} keep any and it is {@link #upstreamQuiet} and {@code reusable}), else it closes. The
   * pair waits for its next request without an upstream, back in OPENING.
   */
  void releaseUpstream(
      IdleUpstreams pool,
      dev.sluice.proxy.config.ListenerHttp.UpstreamPool settings,
      boolean reusable) {
    Connection c = upstream.connection();
    Upstream target = serving;
    boolean keep =
        reusable
            && settings.enabled()
            && target != null
            && target.proxyProtocol() == null // its header named this client
            && upstreamQuiet();
    detachUpstream();
    if (keep && pool.park(target, c, settings)) {
      return;
    }
    letGo(c, target, CloseCause.CLIENT_EOF, false);
  }

  /**
   * The upstream leg's connection is lost or given up mid-exchange ({@code cause}): the relay goes
   * on without it (a 502, or the request again on another).
   */
  void dropUpstream(CloseCause cause) {
    Connection c = upstream.connection();
    Upstream target = serving;
    detachUpstream();
    letGo(c, target, cause, false);
  }

  /**
   * {@code c}, let go of, is closed ({@code reset}: with a reset) and no longer counts at {@code
   * target} ({@code cause}).
   */
  private static void letGo(Connection c, Upstream target, CloseCause cause, boolean reset) {
    if (target != null) {
      target.released(cause, false);
    }
    if (c != null && c.isOpen()) {
      c.switchHandler(Discard.INSTANCE);
      if (reset) {
        c.reset();
      } else {
        c.close();
      }
    }
  }

  /** Whether the upstream leg's connection was an idle one, taken from a pool (no connect). */
  public boolean upstreamReused() {
    return upstreamReused;
  }

  // What the old leg still has pending at the client it gives back itself, as each write completes.
  private void detachUpstream() {
    upstream.detach();
    upstream = new Leg(this, Side.UPSTREAM);
    serving = null;
    upstreamReused = false;
    if (state.isOpen()) {
      state = PairState.OPENING;
    }
  }

  /** What a connection the pair let go of hears from then on: nothing (it is closing). */
  private enum Discard implements dev.sluice.net.ConnectionHandler {
    INSTANCE;

    @Override
    public void onRead(Connection c, dev.sluice.memory.BorrowedBytes bytes) {}
  }

  static String side(Side side) {
    return side.name().toLowerCase(java.util.Locale.ROOT);
  }

  void onClientHandshakeFailed(CloseReason reason) {
    refused(
        switch (reason) {
          case TlsFailure f when f.kind() == TlsFailure.Kind.HANDSHAKE_TIMEOUT ->
              CloseCause.TLS_HANDSHAKE_TIMEOUT;
          case CloseReason.Shutdown s -> CloseCause.SHUTDOWN;
          case CloseReason.PeerReset r -> CloseCause.CLIENT_RESET; // a TCP check, a scanner
          default -> CloseCause.TLS_HANDSHAKE_FAILED;
        },
        detail(reason));
  }

  /**
   * The client was refused before its leg became active (a limit, a ClientHello that did not parse,
   * a failed handshake): the pair ends with {@code why} without ever forwarding.
   */
  public void refused(CloseCause why, String detail) {
    if (state == PairState.CLOSED) {
      return;
    }
    facts.causeIfNone(why, detail);
    client.refused();
    finishIfDone();
  }

  /**
   * The proxy is shutting down: the pair ends as soon as its relay can end it without cutting an
   * exchange (an HTTP connection between requests at once; one in a request after its response).
   */
  public void drain() {
    if (state.isOpen()) {
      relay.onDrain(this);
    }
  }

  /** Runs {@code release} when the pair ends (a count against the client's address, say). */
  public void releaseOnEnd(Runnable release) {
    this.onEnd = release;
  }

  /**
   * Ends the pair now with {@code why}: both legs are closed (reset when {@code reset}, else with
   * FIN after what they hold).
   */
  public void close(CloseCause why, String detail, boolean reset) {
    if (state == PairState.CLOSED) {
      return;
    }
    facts.cause(why, detail);
    // A FIN (or close_notify) tells the peer it has everything: never send one over bytes that
    // are still pending, or that a paused leg left unread.
    boolean hard = reset || client.holdsBytes() || upstream.holdsBytes();
    state = PairState.CLOSING;
    closeLeg(client, hard);
    closeLeg(upstream, hard);
    finishIfDone();
  }

  /**
   * Ends the pair once the client has what is queued for it (an answer the relay gave, the last
   * response): the client's output is shut down after those bytes, the upstream closed (reset when
   * {@code resetUpstream}); the pair is done when the client closes in turn.
   */
  void endAfterClientFlush(CloseCause why, String detail, boolean resetUpstream) {
    if (state == PairState.CLOSED) {
      return;
    }
    facts.cause(why, detail);
    state = PairState.CLOSING;
    client.shutdownOutput();
    Connection c = upstream.connection();
    if (c != null) {
      // Let go of, so that its close (a reset, when the exchange was cut) is the pair's own doing,
      // not news for the client: a reset upstream resets its client, whose answer is on its way.
      Upstream target = serving;
      detachUpstream();
      letGo(c, target, why, resetUpstream);
    }
    finishIfDone();
  }

  private static void closeLeg(Leg leg, boolean hard) {
    Connection c = leg.connection();
    if (c != null && c.isOpen()) {
      if (hard) {
        c.reset();
      } else {
        c.close();
      }
    }
  }

  void finishIfDone() {
    if (state == PairState.CLOSED) {
      return;
    }
    boolean clientDone = client.closed() || client.connection() == null;
    boolean upstreamDone =
        upstream.closed() || (upstream.connection() == null && state != PairState.CONNECTING);
    if (clientDone && upstreamDone) {
      finish();
    }
  }

  private void finish() {
    state = PairState.CLOSED;
    timeouts.cancel();
    if (registry != null) {
      registry.remove(this);
    }
    client.releaseAll();
    upstream.releaseAll();
    relay.onPairEnded(this);
    if (serving != null) {
      serving.released(
          facts.cause(), client.bytesRead() == 0 && upstream.bytesRead() == 0 && !client.ended());
      serving = null;
    }
    if (onEnd != null) {
      onEnd.run();
    }
    owner.onClosed(this);
  }

  private CloseCause classify(Side side, CloseReason reason) {
    boolean fromClient = side == Side.CLIENT;
    return switch (reason) {
      case CloseReason.Normal n ->
          facts.firstEnded() == Side.UPSTREAM ? CloseCause.UPSTREAM_EOF : CloseCause.CLIENT_EOF;
      case CloseReason.PeerReset r ->
          fromClient ? CloseCause.CLIENT_RESET : CloseCause.UPSTREAM_RESET;
      case CloseReason.TlsFailure f
          when fromClient && f.kind() == TlsFailure.Kind.RENEGOTIATION_REFUSED ->
          CloseCause.TLS_RENEGOTIATION_REFUSED;
      case CloseReason.TlsFailure f ->
          fromClient ? CloseCause.TLS_ERROR : CloseCause.UPSTREAM_ERROR;
      case CloseReason.Shutdown s -> CloseCause.SHUTDOWN;
      case CloseReason.Rejected r -> CloseCause.CLIENT_ERROR;
      default -> fromClient ? CloseCause.CLIENT_ERROR : CloseCause.UPSTREAM_ERROR;
    };
  }

  private static String detail(CloseReason reason) {
    return switch (reason) {
      case CloseReason.Normal n -> null;
      case CloseReason.PeerReset r -> r.detail();
      case CloseReason.TlsFailure f -> f.detail();
      case CloseReason.Rejected r -> r.detail();
      case CloseReason.Error e -> String.valueOf(e.cause());
      default -> reason.label();
    };
  }

  private static String requestedServerName(SSLSession session) {
    if (session instanceof ExtendedSSLSession extended) {
      for (SNIServerName name : extended.getRequestedServerNames()) {
        if (name instanceof SNIHostName host) {
          return host.getAsciiName().toLowerCase(java.util.Locale.ROOT);
        }
      }
    }
    return null;
  }

  // ---- timeouts ----

  /** The listener's timeouts or read sizes changed (a reload): apply them to this pair now. */
  public void settingsChanged() {
    if (state != PairState.FORWARDING) {
      return;
    }
    ReadSizes reads = owner.reads();
    client.connection().setMaxReadBytes(budget().pairReadLimit(reads.client()));
    upstream.connection().setMaxReadBytes(budget().pairReadLimit(reads.upstream()));
    timeouts.reschedule();
  }

  /** A leg's peer could not take all it was given: the write-stall clock for it starts. */
  void onBackpressure() {
    timeouts.schedule();
  }

  /**
   * A line for the runtime dump: state, age, how long nothing moved, each leg with its address,
   * bytes and what is pending, and where it goes. Loop thread only.
   */
  public String dumpLine(long nowNanos) {
    StringBuilder b = new StringBuilder(160).append(state());
    b.append(" age ").append(Units.formatNanos(nowNanos - facts.openedNanos()));
    if (client.connection() != null && upstream.connection() != null) {
      b.append(" idle ")
          .append(Units.formatNanos(Math.max(0, nowNanos - timeouts.lastActivityNanos())));
    }
    Upstream target = facts.target();
    b.append(' ').append(client).append(" -> ").append(target == null ? "-" : target.name());
    b.append(' ').append(upstream);
    if (facts.serverName() != null) {
      b.append(" sni ").append(facts.serverName());
    }
    if (facts.fingerprint() != null) {
      b.append(" ja3 ").append(facts.fingerprint().ja3());
      b.append(" ja4 ").append(facts.fingerprint().ja4());
    }
    String forwardedFor = facts.forwardedFor();
    if (forwardedFor != null) {
      b.append(" for ").append(forwardedFor);
    }
    return b.toString();
  }

  @Override
  public String toString() {
    Upstream target = facts.target();
    CloseCause cause = facts.cause();
    return "Pair["
        + state()
        + " "
        + client
        + " -> "
        + (target == null ? "-" : target.name())
        + " "
        + upstream
        + (cause == null ? "" : " " + cause.label())
        + "]";
  }
}
