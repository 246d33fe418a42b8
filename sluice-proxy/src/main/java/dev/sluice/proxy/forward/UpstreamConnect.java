package dev.sluice.proxy.forward;

import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.SocketOptions;
import dev.sluice.proxy.proxyprotocol.HeaderFirst;
import dev.sluice.proxy.proxyprotocol.OutboundHeader;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.tls.TlsHandshakeException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * One connect to an upstream for a pair, retries included: the chooser picks (a route's cluster and
 * its balancer, avoiding the upstreams tried), the connect goes out (TLS, a PROXY protocol header,
 * as the upstream asks), and a failure tries another upstream while the cluster's tries and window
 * allow and the client is still there. It ends once: {@code handler}'s connection becomes active
 * (whoever hears that calls {@link #succeeded}), or {@link Outcome#failed} with the cause. It lives
 * only while connecting (a parked pair holds none), so an HTTP relay can run one per request. Loop
 * thread only.
 */
final class UpstreamConnect {

  /** Where a connect goes next. */
  @FunctionalInterface
  interface Chooser {
    /**
     * Where {@code pair} connects next (its server name may be known), avoiding the upstreams it
     * has {@code tried} already.
     */
    UpstreamChoice choose(Pair pair, List<Pair.Upstream> tried);
  }

  /** What hears how a connect ends. */
  interface Outcome {
    /** Whether the result is still wanted; a late one (the client went) is dropped. */
    boolean wanted();

    /**
     * It failed for good: nothing to try, or no more tries; reset the client when {@code reset}.
     */
    void failed(CloseCause cause, String detail, boolean reset);
  }

  /**
   * Loaded with this class, at the first connect: {@link #classify} may run when no file descriptor
   * is left, and loading a class from the class path then would fail (the error lost in the
   * connect's future, the pair never closed).
   */
  private static final Class<?> LOADED_BEFORE_FAILURES = TlsHandshakeException.class;

  private final Pair pair;
  private final Chooser chooser;
  private final ConnectionHandler handler;
  private final Outcome outcome;

  /** Where an idle connection to the upstream chosen may be taken from, or null. */
  private final IdleUpstreams pool;

  private boolean reused;
  private List<Pair.Upstream> tried = List.of();
  private long firstNanos;
  private CloseCause lastFailure;
  private String lastFailureDetail;

  UpstreamConnect(
      Pair pair, Chooser chooser, ConnectionHandler handler, Outcome outcome, IdleUpstreams pool) {
    this.pair = pair;
    this.chooser = chooser;
    this.handler = handler;
    this.outcome = outcome;
    this.pool = pool;
  }

  /** Whether the handler got an idle connection from the pool instead of a new one. */
  boolean reused() {
    return reused;
  }

  /** Chooses an upstream and connects to it (again after each failure that may be retried). */
  void start() {
    UpstreamChoice choice = chooser.choose(pair, tried);
    Pair.Upstream attempt;
    switch (choice) {
      case UpstreamChoice.NoRoute none -> {
        outcome.failed(CloseCause.NO_ROUTE, none.detail(), false);
        return;
      }
      case UpstreamChoice.NoneHealthy none -> {
        outcome.failed(
            tried.isEmpty() ? CloseCause.NO_HEALTHY_UPSTREAM : lastFailure,
            tried.isEmpty() ? none.detail() : lastFailureDetail + "; " + none.detail(),
            !tried.isEmpty());
        return;
      }
      case UpstreamChoice.To to -> attempt = to.upstream();
    }
    pair.facts().target(attempt);
    long startedNanos = System.nanoTime();
    if (firstNanos == 0) {
      firstNanos = startedNanos;
    }
    pair.connectStarted();
    Connection idle = pool == null || !tried.isEmpty() ? null : pool.take(attempt);
    if (idle != null) {
      reused = true;
      idle.switchHandler(handler); // active at once: the pair hears of it now
      return;
    }
    SocketOptions options = pair.owner().upstreamOptions();
    ProxyHeader.Version proxyProtocol = attempt.proxyProtocol();
    byte[] header =
        proxyProtocol == null
            ? null
            : OutboundHeader.forPair(pair, proxyProtocol, attempt.fingerprintTlvs()); // per attempt
    HeaderFirst.connect(
            pair.client().loop(),
            attempt.address(),
            options,
            attempt.tls(),
            attempt.tlsServerName(),
            header,
            handler)
        .whenComplete(
            (connection, error) -> {
              if (error != null) {
                failed(attempt, startedNanos, error);
              }
            });
  }

  /** The handler's connection is active: records how long it took and in how many tries. */
  void succeeded() {
    pair.facts().connected(System.nanoTime() - firstNanos, tried.size() + 1);
  }

  private void failed(Pair.Upstream attempt, long startedNanos, Throwable error) {
    CloseCause failure = classify(error);
    String detail = "to " + attempt.name() + ": " + error.getMessage();
    if (failure == CloseCause.FD_EXHAUSTED) {
      // The proxy's own limit, not the upstream's fault: blaming it would eject healthy upstreams
      // one after another, and another upstream needs a descriptor just the same.
      if (outcome.wanted()) {
        outcome.failed(failure, detail, true);
      } else {
        pair.finishIfDone();
      }
      return;
    }
    attempt.connectFailed(failure, error.getMessage());
    if (!outcome.wanted()) {
      pair.finishIfDone();
      return;
    }
    lastFailure = failure;
    lastFailureDetail = detail;
    if (tried.isEmpty()) {
      tried = new ArrayList<>(2);
    }
    tried.add(attempt);
    pair.facts().connectAttempts(tried.size());
    // Judged by when the failed attempt started, not by now: a connect that timed out has taken
    // the whole connect timeout, which may be as long as the window itself.
    long within = attempt.triesWithinNanos();
    boolean inTime = within == 0 || startedNanos - firstNanos < within;
    if (tried.size() < attempt.maxTries() && inTime && pair.client().connection().isOpen()) {
      start(); // nothing was sent to the client yet: try another upstream
      return;
    }
    outcome.failed(
        failure, detail + (tried.size() > 1 ? " (after " + tried.size() + " tries)" : ""), true);
  }

  /** The cause a connect's failure shows as. */
  static CloseCause classify(Throwable error) {
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
}
