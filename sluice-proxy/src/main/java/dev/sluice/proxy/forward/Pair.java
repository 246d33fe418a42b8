package dev.sluice.proxy.forward;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoop;
import dev.sluice.net.SocketOptions;
import dev.sluice.proxy.config.ReadSizes;
import dev.sluice.proxy.config.TimeoutSettings;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.proxyprotocol.HeaderFirst;
import dev.sluice.proxy.proxyprotocol.OutboundHeader;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.proxy.route.Fingerprint;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsHandshakeException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLSession;

/**
 * One proxied connection: a client's leg and an upstream's, both on the client's loop, joined by
 * two symmetric pipes ({@link Leg}). It connects the upstream once the client is in (after its TLS
 * handshake, or once a passthrough ClientHello named its server), forwards both ways with
 * backpressure both ways, half-closes each direction on its own, resets the other leg at once when
 * one resets, and ends with exactly one {@link CloseCause}. Loop thread only.
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

    /** Options for connecting to upstreams (the connect timeout is the pair's). */
    SocketOptions upstreamOptions();

    /** Whether TLS clients that send no server name are refused. */
    default boolean requireSni() {
      return false;
    }

    /** The pair began forwarding. */
    default void onForwarding(Pair pair) {}

    /** A leg read {@code bytes} from its side (for live byte counters: runs on the loop). */
    default void onBytesRead(Side side, int bytes) {}

    /** The client's TLS handshake finished: a full one, or one that resumed a session. */
    default void onTlsHandshake(boolean resumed) {}

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
  }

  private enum State {
    /** The client's leg is not active yet (TLS handshake, ClientHello peek). */
    OPENING,
    CONNECTING,
    FORWARDING,
    CLOSING,
    CLOSED
  }

  private final Owner owner;
  private final Leg client = new Leg(this, Side.CLIENT);
  private final Leg upstream = new Leg(this, Side.UPSTREAM);
  private final long openedNanos = System.nanoTime();
  private final long openedMillis = System.currentTimeMillis();
  private EventLoop loop;
  private State state = State.OPENING;
  private CloseCause cause;
  private String causeDetail;

  /**
   * The cause is an end of stream heard while the other leg was still open: what ends that leg (a
   * timeout, a reset, undeliverable bytes, the drain) says better why the pair ended.
   */
  private boolean causeProvisional;

  private Side firstEnded;
  private String serverName;
  private String applicationProtocol;
  private Fingerprint fingerprint;
  private SocketAddress clientAddress;
  private SocketAddress peerAddress;
  private ProxyHeader proxyHeader;
  private Upstream target;
  private boolean upstreamActive;
  private List<Upstream> tried = List.of();
  private Runnable onEnd;
  private long firstConnectNanos;
  private long connectedNanos;
  private EventLoop.Timeout timer;
  private long timerDueNanos;

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

  Leg leg(Side side) {
    return side == Side.CLIENT ? client : upstream;
  }

  InFlightBudget.Share budget() {
    return owner.budget();
  }

  boolean forwarding() {
    return state == State.FORWARDING;
  }

  /** Whether the pair is under way (not closing or closed). */
  public boolean isOpen() {
    return state.compareTo(State.CLOSING) < 0;
  }

  /** Why it ended, or null while open. */
  public CloseCause cause() {
    return cause;
  }

  /** The words behind the cause, or null. */
  public String causeDetail() {
    return causeDetail;
  }

  /** The server name the client asked for (SNI), or null. */
  public String serverName() {
    return serverName;
  }

  /** Sets the server name read from a passthrough ClientHello. */
  public void serverName(String name) {
    this.serverName = name;
  }

  /** The application protocol (ALPN) negotiated or offered, or null. */
  public String applicationProtocol() {
    return applicationProtocol;
  }

  /** The client's JA3 and JA4, or null when it sent no ClientHello (plain TCP, a refusal). */
  public Fingerprint fingerprint() {
    return fingerprint;
  }

  /** Records the fingerprints of the client's ClientHello (read once, by the first stage). */
  public void fingerprint(Fingerprint fingerprint) {
    this.fingerprint = fingerprint;
  }

  /** Sets the protocols read from a passthrough ClientHello (the first one offered). */
  public void applicationProtocol(String protocol) {
    this.applicationProtocol = protocol;
  }

  /**
   * The client's address: the original client's as a PROXY protocol header told it, else the peer's
   * (null until its connection is known).
   */
  public SocketAddress clientAddress() {
    return clientAddress != null ? clientAddress : peerAddress;
  }

  /**
   * The address of the peer that connected: the client itself, or with a PROXY protocol header the
   * load balancer that sent it (null until the connection is known).
   */
  public SocketAddress peerAddress() {
    return peerAddress;
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

  /** The address the client connected to: the header's destination, else the listener's. */
  public SocketAddress destinationAddress() {
    if (proxyHeader != null && proxyHeader.destination() != null) {
      return proxyHeader.destination();
    }
    return client.connection == null ? null : client.connection.localAddress();
  }

  /** The upstream chosen, or null. */
  public Upstream target() {
    return target;
  }

  /** From the first connect attempt to the upstream being up (retries included), or -1. */
  public long connectNanos() {
    return connectedNanos == 0 ? -1 : connectedNanos - firstConnectNanos;
  }

  /** A leg read {@code bytes}: the live counters hear of it. */
  void countRead(Side side, int bytes) {
    owner.onBytesRead(side, bytes);
    if (target != null) {
      target.bytesRead(side, bytes);
    }
  }

  /** How many connects it took (0 when none was tried). */
  public int connectAttempts() {
    return tried.size() + (connectedNanos != 0 ? 1 : 0);
  }

  /** When the client connected (wall clock, ms). */
  public long openedMillis() {
    return openedMillis;
  }

  /** How long the pair has lived, or lived, in ns. */
  public long ageNanos() {
    return System.nanoTime() - openedNanos;
  }

  /** The name of the listener it came in on. */
  public String listenerName() {
    return owner.name();
  }

  /** A one-line state for dumps. */
  public String state() {
    return state.name().toLowerCase(java.util.Locale.ROOT);
  }

  // ---- the legs' events ----

  void onLegActive(Leg leg) {
    Connection c = leg.connection;
    if (leg == client) {
      onClientActive(c);
    } else {
      onUpstreamActive(c);
    }
  }

  private void onClientActive(Connection c) {
    loop = c.loop();
    peerAddress(c.remoteAddress());
    registry = PairRegistry.of(loop);
    registry.add(this);
    c.setMaxReadBytes(budget().pairReadLimit(owner.reads().client()));
    if (c instanceof TlsConnection tls) {
      serverName = requestedServerName(tls.session());
      applicationProtocol = tls.applicationProtocol();
      owner.onTlsHandshake(resumedSession(tls.session(), openedMillis));
    }
    c.pauseReading(); // until the upstream is up: its bytes wait in the socket
    if (serverName == null && owner.requireSni()) {
      close(CloseCause.SNI_REQUIRED, "the client sent no server name", false);
      return;
    }
    connect();
  }

  /**
   * Whether a handshake that began after {@code acceptedMillis} resumed {@code session}: the JDK
   * has no flag for it, but a session keeps the creation time of the full handshake that made it (a
   * TLS 1.2 session from the cache, and one restored from a TLS 1.2 or 1.3 ticket, alike), so a
   * session older than the connection is a resumed one. Millisecond clock: a full handshake always
   * makes its session after the accept, never before.
   */
  static boolean resumedSession(javax.net.ssl.SSLSession session, long acceptedMillis) {
    return session.getCreationTime() < acceptedMillis;
  }

  private void connect() {
    UpstreamChoice choice = owner.choose(this, tried);
    switch (choice) {
      case UpstreamChoice.NoRoute none -> {
        close(CloseCause.NO_ROUTE, none.detail(), false);
        return;
      }
      case UpstreamChoice.NoneHealthy none -> {
        close(
            tried.isEmpty() ? CloseCause.NO_HEALTHY_UPSTREAM : lastFailure,
            tried.isEmpty() ? none.detail() : lastFailureDetail + "; " + none.detail(),
            !tried.isEmpty());
        return;
      }
      case UpstreamChoice.To to -> target = to.upstream();
    }
    long startedNanos = System.nanoTime();
    if (firstConnectNanos == 0) {
      firstConnectNanos = startedNanos;
    }
    state = State.CONNECTING;
    TimeoutSettings timeouts = owner.timeouts();
    SocketOptions options = owner.upstreamOptions().withConnectTimeout(timeouts.connect());
    Upstream attempt = target;
    ProxyHeader.Version proxyProtocol = attempt.proxyProtocol();
    byte[] header =
        proxyProtocol == null
            ? null
            : OutboundHeader.forPair(this, proxyProtocol, attempt.fingerprintTlvs()); // per attempt
    java.util.concurrent.CompletableFuture<?> connected =
        HeaderFirst.connect(
            loop,
            attempt.address(),
            options,
            attempt.tls(),
            attempt.tlsServerName(),
            header,
            upstream);
    connected.whenComplete(
        (connection, error) -> {
          if (error != null) {
            onConnectFailed(attempt, startedNanos, error);
          }
        });
  }

  private CloseCause lastFailure;
  private String lastFailureDetail;

  private void onConnectFailed(Upstream attempt, long startedNanos, Throwable error) {
    CloseCause failure = connectFailure(error);
    String detail = "to " + attempt.name() + ": " + error.getMessage();
    if (failure == CloseCause.FD_EXHAUSTED) {
      // The proxy's own limit, not the upstream's fault: blaming it would eject healthy upstreams
      // one after another, and another upstream needs a descriptor just the same.
      if (state == State.CONNECTING) {
        close(failure, detail, true);
      } else {
        finishIfDone();
      }
      return;
    }
    attempt.connectFailed(failure, error.getMessage());
    if (state != State.CONNECTING) {
      finishIfDone();
      return;
    }
    lastFailure = failure;
    lastFailureDetail = detail;
    if (tried.isEmpty()) {
      tried = new ArrayList<>(2);
    }
    tried.add(attempt);
    // Judged by when the failed attempt started, not by now: a connect that timed out has taken
    // the whole connect timeout, which may be as long as the window itself.
    long within = attempt.triesWithinNanos();
    boolean inTime = within == 0 || startedNanos - firstConnectNanos < within;
    if (tried.size() < attempt.maxTries() && inTime && client.connection.isOpen()) {
      connect(); // nothing was sent to the client yet: try another upstream
      return;
    }
    close(failure, detail + (tried.size() > 1 ? " (after " + tried.size() + " tries)" : ""), true);
  }

  private static CloseCause connectFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof TlsHandshakeException h) {
        return h.reason() instanceof TlsFailure f && f.kind() == TlsFailure.Kind.HANDSHAKE_TIMEOUT
            ? CloseCause.UPSTREAM_TLS_TIMEOUT
            : CloseCause.UPSTREAM_TLS_FAILED;
      }
      if (t instanceof SocketTimeoutException) {
        return CloseCause.CONNECT_TIMEOUT;
      }
      // EMFILE and ENFILE, as the JDK words them ("Too many open files [in system]"); tested
      // inline, as the core's listener does: a helper class loaded first now would need a
      // descriptor to load.
      if (String.valueOf(t.getMessage()).contains("Too many open files")) {
        return CloseCause.FD_EXHAUSTED;
      }
      if (t instanceof ConnectException && String.valueOf(t.getMessage()).contains("refused")) {
        return CloseCause.CONNECT_REFUSED;
      }
    }
    return CloseCause.CONNECT_FAILED;
  }

  private void onUpstreamActive(Connection c) {
    target.connected();
    if (state != State.CONNECTING) {
      target.released(CloseCause.CLIENT_EOF, true);
      c.close(); // the client went away while we connected
      return;
    }
    upstreamActive = true;
    c.setMaxReadBytes(budget().pairReadLimit(owner.reads().upstream()));
    connectedNanos = System.nanoTime();
    state = State.FORWARDING;
    owner.onForwarding(this);
    client.startForwarding();
    upstream.startForwarding();
    if (client.ended) {
      upstream.shutdownOutput(); // the client ended while we connected
    }
    scheduleTimer();
  }

  void onLegEnded(Leg leg) {
    if (firstEnded == null) {
      firstEnded = leg.side();
      scheduleTimer();
    }
    if (state == State.FORWARDING) {
      leg(leg.side().other()).shutdownOutput(); // once its pending bytes are flushed
    }
  }

  void onLegClosed(Leg leg, CloseReason reason) {
    Leg other = leg(leg.side().other());
    Connection otherConnection = other.connection;
    boolean otherOpen = otherConnection != null && otherConnection.isOpen();
    if (cause == null || causeProvisional) {
      cause = classify(leg.side(), reason);
      causeDetail = detail(reason);
      causeProvisional = otherOpen && reason instanceof CloseReason.Normal;
    }
    if (otherOpen && !(reason instanceof CloseReason.Normal)) {
      otherConnection.reset(); // a reset, an error, a timeout on one leg ends the pair at once
    }
    if (state.compareTo(State.CLOSING) < 0) {
      state = State.CLOSING;
    }
    if (otherOpen && reason instanceof CloseReason.Normal) {
      // Both directions finished on that leg (with TLS 1.2 its close_notify closes both at once).
      // The other may only end now: whatever it still sends can go nowhere (it is reset), and
      // the half-close and idle timeouts keep judging it, so it cannot linger in CLOSING.
      scheduleTimer();
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
    if (cause == null || causeProvisional) {
      cause = CloseCause.UNDELIVERABLE;
      causeDetail = what + (causeProvisional ? " had closed" : " could take no more");
      causeProvisional = false;
    }
    Connection c = from.connection;
    if (c != null && c.isOpen()) {
      if (c.pendingWriteBytes() > 0) {
        from.resetOnceDrained(); // first the bytes it is owed (a response before close_notify)
      } else {
        c.reset();
      }
    }
  }

  private static String side(Side side) {
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
    if (state == State.CLOSED) {
      return;
    }
    if (cause == null) {
      cause = why;
      causeDetail = detail;
    }
    client.closed = true;
    finishIfDone();
  }

  /** Runs {@code release} when the pair ends (a count against the client's address, say). */
  public void releaseOnEnd(Runnable release) {
    this.onEnd = release;
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

  /** Records the peer's address before the client's leg is active (first stages, refusals). */
  public void peerAddress(SocketAddress address) {
    if (peerAddress == null) {
      peerAddress = address;
    }
  }

  /**
   * Ends the pair now with {@code why}: both legs are closed (reset when {@code reset}, else with
   * FIN after what they hold).
   */
  public void close(CloseCause why, String detail, boolean reset) {
    if (state == State.CLOSED) {
      return;
    }
    if (cause == null || causeProvisional) {
      cause = why;
      causeDetail = detail;
      causeProvisional = false;
    }
    // A FIN (or close_notify) tells the peer it has everything: never send one over bytes that
    // are still pending, or that a paused leg left unread.
    boolean hard = reset || holdsBytes();
    state = State.CLOSING;
    for (Leg leg : List.of(client, upstream)) {
      Connection c = leg.connection;
      if (c != null && c.isOpen()) {
        if (hard) {
          c.reset();
        } else {
          c.close();
        }
      }
    }
    finishIfDone();
  }

  /** Bytes pending either way, kept before the upstream was up, or left unread by a paused leg. */
  private boolean holdsBytes() {
    for (Leg leg : List.of(client, upstream)) {
      if (leg.holdsBytes()) {
        return true;
      }
    }
    return false;
  }

  private void finishIfDone() {
    if (state == State.CLOSED) {
      return;
    }
    boolean clientDone = client.closed || client.connection == null;
    boolean upstreamDone =
        upstream.closed || (upstream.connection == null && state != State.CONNECTING);
    if (clientDone && upstreamDone) {
      finish();
    }
  }

  private void finish() {
    state = State.CLOSED;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    if (registry != null) {
      registry.remove(this);
    }
    client.releaseAll();
    upstream.releaseAll();
    if (target != null && upstreamActive) {
      target.released(cause, client.bytesRead == 0 && upstream.bytesRead == 0 && !client.ended);
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
          firstEnded == Side.UPSTREAM ? CloseCause.UPSTREAM_EOF : CloseCause.CLIENT_EOF;
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
    if (state != State.FORWARDING) {
      return;
    }
    ReadSizes reads = owner.reads();
    client.connection.setMaxReadBytes(budget().pairReadLimit(reads.client()));
    upstream.connection.setMaxReadBytes(budget().pairReadLimit(reads.upstream()));
    timerDueNanos = 0;
    scheduleTimer();
  }

  /** A leg's peer could not take all it was given: the write-stall clock for it starts. */
  void onBackpressure() {
    scheduleTimer();
  }

  /**
   * Timers run from forwarding until the end, CLOSING included: a leg left open must not linger.
   */
  private boolean timed() {
    return state == State.FORWARDING || (state == State.CLOSING && upstreamActive);
  }

  private void scheduleTimer() {
    if (!timed()) {
      return;
    }
    long due = nextCheckNanos();
    if (due == Long.MAX_VALUE) {
      return;
    }
    if (timer != null && timerDueNanos != 0 && timerDueNanos <= due) {
      return; // the timer already looks sooner
    }
    if (timer != null) {
      timer.cancel();
    }
    timerDueNanos = due;
    long delay = Math.max(0, due - loop.nanoTime());
    timer = loop.schedule(Duration.ofNanos(delay), this::onTimer);
  }

  private long nextCheckNanos() {
    TimeoutSettings t = owner.timeouts();
    long now = loop.nanoTime();
    long due = Long.MAX_VALUE;
    long quietSince = busy() ? now : lastActivityNanos();
    if (!t.idle().isZero()) {
      due = Math.min(due, quietSince + t.idle().toNanos());
    }
    if (!t.halfClose().isZero() && firstEnded != null) {
      due = Math.min(due, quietSince + t.halfClose().toNanos());
    }
    if (!t.maxConnectionDuration().isZero()) {
      due = Math.min(due, openedNanos + t.maxConnectionDuration().toNanos());
    }
    if (!t.writeStall().isZero()) {
      for (Leg sender : List.of(client, upstream)) {
        long since = stalledSince(sender);
        if (since != Long.MIN_VALUE) {
          due = Math.min(due, since + t.writeStall().toNanos());
        }
      }
    }
    return due;
  }

  /**
   * Since when the peer of {@code sender} has taken none of the bytes pending for it, or {@link
   * Long#MIN_VALUE} when nothing of {@code sender}'s is pending there.
   */
  private long stalledSince(Leg sender) {
    Connection dest = leg(sender.side().other()).connection;
    if (!sender.pausedForPeer || dest == null || dest.pendingWriteBytes() == 0) {
      return Long.MIN_VALUE;
    }
    return Math.max(sender.pausedSinceNanos, dest.lastWriteNanos());
  }

  /** A reason to cut the pair, found by its timer. */
  private record Cut(CloseCause cause, String detail) {}

  private void onTimer() {
    timer = null;
    timerDueNanos = 0;
    if (!timed()) {
      return;
    }
    Cut cut = due(owner.timeouts(), loop.nanoTime());
    if (cut != null) {
      close(cut.cause(), cut.detail(), false);
    } else {
      scheduleTimer();
    }
  }

  private Cut due(TimeoutSettings t, long now) {
    if (!t.maxConnectionDuration().isZero()
        && now - openedNanos >= t.maxConnectionDuration().toNanos()) {
      return new Cut(CloseCause.MAX_DURATION, "older than " + t.maxConnectionDuration());
    }
    if (!t.writeStall().isZero()) {
      for (Leg sender : List.of(client, upstream)) {
        long since = stalledSince(sender);
        if (since != Long.MIN_VALUE && now - since >= t.writeStall().toNanos()) {
          Side stalled = sender.side().other();
          return new Cut(
              CloseCause.WRITE_STALL_TIMEOUT,
              "the "
                  + side(stalled)
                  + " took none of the "
                  + leg(stalled).connection.pendingWriteBytes()
                  + " B pending for it in "
                  + Units.formatDuration(t.writeStall()));
        }
      }
    }
    boolean quiet = !busy();
    long quietFor = now - lastActivityNanos();
    if (!t.halfClose().isZero()
        && firstEnded != null
        && quiet
        && quietFor >= t.halfClose().toNanos()) {
      return new Cut(
          CloseCause.HALF_CLOSE_TIMEOUT,
          "the "
              + side(firstEnded)
              + " ended and the other direction moved no bytes for "
              + Units.formatDuration(t.halfClose()));
    }
    if (!t.idle().isZero() && quiet && quietFor >= t.idle().toNanos()) {
      return new Cut(
          CloseCause.IDLE_TIMEOUT, "no bytes either way for " + Units.formatDuration(t.idle()));
    }
    return null;
  }

  /** Bytes pending either way, or a leg held back: a pair that is not idle, however quiet. */
  private boolean busy() {
    return client.charged > 0
        || upstream.charged > 0
        || client.pausedForPeer
        || upstream.pausedForPeer
        || client.waitingForBudget
        || upstream.waitingForBudget
        || client.connection.pendingWriteBytes() > 0
        || upstream.connection.pendingWriteBytes() > 0;
  }

  private long lastActivityNanos() {
    return Math.max(client.connection.lastActivityNanos(), upstream.connection.lastActivityNanos());
  }

  /**
   * A line for the runtime dump: state, age, how long nothing moved, each leg with its address,
   * bytes and what is pending, and where it goes. Loop thread only.
   */
  public String dumpLine(long nowNanos) {
    StringBuilder b = new StringBuilder(160).append(state());
    b.append(" age ").append(Units.formatNanos(nowNanos - openedNanos));
    if (client.connection != null && upstream.connection != null) {
      b.append(" idle ").append(Units.formatNanos(Math.max(0, nowNanos - lastActivityNanos())));
    }
    b.append(' ').append(client).append(" -> ").append(target == null ? "-" : target.name());
    b.append(' ').append(upstream);
    if (serverName != null) {
      b.append(" sni ").append(serverName);
    }
    if (fingerprint != null) {
      b.append(" ja3 ").append(fingerprint.ja3()).append(" ja4 ").append(fingerprint.ja4());
    }
    if (clientAddress != null && !clientAddress.equals(peerAddress)) {
      b.append(" for ").append(dev.sluice.proxy.config.Endpoint.format(clientAddress));
    }
    return b.toString();
  }

  @Override
  public String toString() {
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
