package dev.sluice.proxy.forward;

import dev.sluice.net.Connection;
import dev.sluice.net.EventLoop;
import dev.sluice.proxy.config.ListenerHttp;
import dev.sluice.proxy.http.BodyReader;
import dev.sluice.proxy.http.ConnectionFacts;
import dev.sluice.proxy.http.Exchange;
import dev.sluice.proxy.http.HeadReader;
import dev.sluice.proxy.http.HeadResult;
import dev.sluice.proxy.http.HeadWriter;
import dev.sluice.proxy.http.ProxyAnswer;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.tls.TlsConnection;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The HTTP/1 path: reads each request head from the client before any upstream exists, routes it,
 * takes an upstream connection for it (an idle one from the loop's pool, else a new connect),
 * writes the rewritten head and streams the body through; then reads the response head, rewrites it
 * and streams its body back. Once the response has been taken by the client's socket, the upstream
 * connection goes back to the pool (or closes) and the pair waits for the next request without one:
 * each request is routed on its own, and an idle keep-alive client holds no upstream. One exchange
 * at a time: bytes of a pipelined request that arrive before the response is done are kept (exact
 * size, charged to the budget) and the client is not read meanwhile, so responses go back in order.
 * A 101 hands the pair, and that upstream connection, to the raw relay.
 *
 * <p>A request without a body whose method is idempotent (RFC 9110 §9.2.2), sent on a pooled
 * connection that its upstream closes or resets before any byte of a response, is sent once more on
 * a new connection (RFC 9112 §9.3.1): an upstream may close an idle connection just as a request
 * goes out on it. Its head is kept, at exact size and charged to the budget, until the response
 * begins.
 *
 * <p>An idle keep-alive pair holds no buffer: the head readers hold bytes only for a head under
 * way, and the body readers are counters. One instance per pair; loop thread only.
 */
final class HttpRelay implements Relay, Runnable {

  /** Where the client's side of the exchange is. */
  private enum RequestPhase {
    /** Reading a request head (or waiting for one: keep-alive). */
    HEAD,
    /** Streaming the request's body to the upstream. */
    BODY,
    /** The whole request went upstream; what the client sends next waits for the response. */
    SENT,
    /** The proxy answered the client and is ending the connection: nothing more is read. */
    DONE
  }

  /** Where the upstream's side of the exchange is. */
  private enum ResponsePhase {
    /** No request is waiting for an answer. */
    NONE,
    /** Reading a response head (interim ones included). */
    HEAD,
    /** Streaming the response's body to the client. */
    BODY,
    /**
     * The response was read whole; what is still pending either way drains before the upstream
     * connection changes hands.
     */
    SETTLING
  }

  /** What the one timer judges now. */
  private enum Deadline {
    NONE,
    REQUEST_HEAD,
    KEEP_ALIVE,
    RESPONSE_HEAD,
    /**
     * The client's last response (or the proxy's answer) is queued and its output shut down after
     * it: once it has been handed all of it, the client gets this long to close.
     */
    LINGER
  }

  /** A chunked body's trailer section is bounded like a head. */
  private static final int MAX_TRAILER_BYTES = 8 * 1024;

  /**
   * The listener's settings for the exchange under way: read again at each request, so that a
   * reload reaches kept-alive connections (the head size bound is the connection's first).
   */
  private ListenerHttp settings;

  private final HeadReader<RequestHead> requests;
  private final HeadReader<ResponseHead> responses;
  private Pair pair;
  private RequestPhase requestPhase = RequestPhase.HEAD;
  private ResponsePhase responsePhase = ResponsePhase.NONE;

  /**
   * The request under way, for what its response means. Its fields viewed the read it came in and
   * are not read after it.
   */
  private RequestHead request;

  private BodyReader requestBody;
  private BodyReader responseBody;
  private boolean clientKeepAlive;

  /** The proxy is shutting down: no request after the one under way. */
  private boolean draining;

  /** Whether the upstream connection may carry another request after this exchange. */
  private boolean upstreamReusable;

  /** Whether the request under way may be sent again, once, if its pooled connection fails. */
  private boolean replayable;

  /** The upstream's head for the request, kept while the upstream connects. */
  private byte[] headForUpstream;

  /**
   * The head sent on a pooled connection, kept (charged to the budget) until the response begins,
   * to send it again on a new connection if that one turns out closed; or null.
   */
  private byte[] replay;

  private IdleUpstreams pool;

  /** Client bytes read past the request under way (pipelined), exact size, or null. */
  private byte[] waiting;

  /** Bytes the head readers hold, as charged to the budget. */
  private int headBytesCharged;

  /** Whether any byte of the current response went to the client (then no error answer fits). */
  private boolean responseStarted;

  /** What the request under way did, for its access log line; null between requests. */
  private ExchangeRecord exchange;

  private ConnectionFacts connectionFacts;
  private Deadline deadline = Deadline.NONE;
  private EventLoop.Timeout timer;

  HttpRelay(ListenerHttp settings) {
    this.settings = settings;
    this.requests = HeadReader.requests(settings.maxHeaderBytes());
    this.responses = HeadReader.responses(settings.maxHeaderBytes());
  }

  // ---- the relay's events ----

  @Override
  public void start(Pair pair) {
    this.pair = pair;
    arm(Deadline.REQUEST_HEAD, pair.owner().timeouts().requestHead());
    pair.client().resumeIfWanted();
  }

  @Override
  public void onRead(Leg from, ByteBuffer data) {
    if (from.side() == Side.CLIENT) {
      fromClient(data);
    } else {
      fromUpstream(data);
    }
  }

  @Override
  public void onUpstreamActive(Pair pair) {
    byte[] head = headForUpstream;
    headForUpstream = null;
    if (replayable && pair.upstreamReused()) {
      replay = head;
      pair.budget().charge(head.length);
    }
    pair.client().forward(ByteBuffer.wrap(head));
    exchange.sentUpstream(pair);
    pair.client().startForwarding(); // body bytes that came while connecting
    pair.upstream().startForwarding();
    // A client that ended its side after its request is not passed on: the request is framed,
    // and the upstream connection stays fit for the next one.
    armResponseHeadIfSent();
  }

  @Override
  public boolean wantsReads(Leg leg) {
    if (requestPhase == RequestPhase.DONE) {
      return leg.side() == Side.CLIENT;
    }
    if (!pair.isOpen()) {
      return false;
    }
    if (leg.side() == Side.UPSTREAM) {
      return pair.forwarding() && responsePhase != ResponsePhase.SETTLING;
    }
    return waiting == null;
  }

  @Override
  public boolean upstreamPerExchange() {
    return true;
  }

  @Override
  public boolean onUpstreamLost(Pair pair, CloseCause cause, String detail) {
    return switch (responsePhase) {
      case HEAD -> {
        if (responseStarted) {
          yield false; // an interim response went back: the client cannot be told otherwise
        }
        if (!retry(cause)) {
          pair.dropUpstream(cause);
          answer(502, cause, "the upstream closed before its response head: " + detail);
        }
        yield true;
      }
      case SETTLING -> {
        upstreamReusable = false; // its response was whole: the client keeps it
        yield true;
      }
      case NONE, BODY -> false; // a response cut short: the client must see that it was
    };
  }

  @Override
  public void onDrain(Pair pair) {
    draining = true;
    if (requestPhase == RequestPhase.HEAD
        && responsePhase == ResponsePhase.NONE
        && requests.heldBytes() == 0) {
      endAfterFlush(CloseCause.SHUTDOWN, "the proxy is shutting down"); // between requests
    }
  }

  @Override
  public void onDrained(Leg leg) {
    if (responsePhase == ResponsePhase.SETTLING && pair.isOpen() && pair.settled()) {
      nextExchange();
    }
  }

  @Override
  public void onEnded(Leg leg) {
    if (leg.side() == Side.CLIENT) {
      clientEnded();
    } else {
      upstreamEnded();
    }
  }

  @Override
  public void onConnectFailed(Pair pair, CloseCause cause, String detail, boolean reset) {
    int status =
        switch (cause) {
          case CONNECT_TIMEOUT, UPSTREAM_TLS_TIMEOUT -> 504;
          case NO_HEALTHY_UPSTREAM, NO_ROUTE, LIMIT_REACHED, FD_EXHAUSTED -> 503;
          default -> 502;
        };
    answer(status, cause, detail);
  }

  // ---- the client's bytes ----

  private void fromClient(ByteBuffer data) {
    while (data.hasRemaining() && pair.isOpen()) {
      switch (requestPhase) {
        case HEAD -> {
          if (!readRequestHead(data)) {
            return;
          }
        }
        case BODY -> forwardRequestBody(data);
        case SENT -> {
          keepWaiting(data);
          return;
        }
        case DONE -> {
          data.position(data.limit()); // after an answer that ends the connection: dropped
          return;
        }
      }
    }
  }

  /** Whether a head was read whole (and {@code data} moved past it). */
  private boolean readRequestHead(ByteBuffer data) {
    exchange = ExchangeRecord.reading(exchange, pair, data.remaining());
    if (deadline != Deadline.REQUEST_HEAD) {
      // The next request has begun (between requests the keep-alive time ran, or none did:
      // keepAlive none), and its head is bounded like the first one's.
      arm(Deadline.REQUEST_HEAD, pair.owner().timeouts().requestHead());
    }
    switch (requests.offer(data)) {
      case HeadResult.NeedMore<RequestHead> more -> {
        data.position(data.limit());
        chargeHeads();
        return false;
      }
      case HeadResult.Refused<RequestHead> refused -> {
        answer(refused.status(), CloseCause.BAD_REQUEST, refused.reason());
        return false;
      }
      case HeadResult.Complete<RequestHead> complete -> {
        chargeHeads();
        data.position(data.position() + complete.consumed());
        return onRequest(complete.head());
      }
    }
  }

  private boolean onRequest(RequestHead head) {
    disarm();
    exchange.request(head);
    if (head.isConnect()) {
      answer(405, CloseCause.BAD_REQUEST, "CONNECT is not proxied");
      return false;
    }
    ListenerHttp now = pair.owner().http();
    if (now != null) {
      settings = now;
    }
    String cluster = settings.routes().clusterFor(head);
    exchange.route(cluster);
    pair.facts().route(cluster);
    request = head;
    requestBody = head.framing().reader(400, MAX_TRAILER_BYTES);
    requestPhase = requestBody.finished() ? RequestPhase.SENT : RequestPhase.BODY;
    responsePhase = ResponsePhase.HEAD;
    responseStarted = false;
    replayable = requestBody.finished() && idempotent(head.method());
    headForUpstream = HeadWriter.request(head, settings.rewrite(), facts(), true);
    pair.connectUpstream(settings.upstreamPool().enabled() ? pool() : null);
    return pair.isOpen();
  }

  /** RFC 9110 §9.2.2: a request with one of these methods may be sent twice. */
  private static boolean idempotent(String method) {
    return switch (method) {
      case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
      default -> false;
    };
  }

  private IdleUpstreams pool() {
    if (pool == null) {
      pool = IdleUpstreams.of(pair.client().loop());
    }
    return pool;
  }

  /**
   * Sends the request again on a new connection, once, when its pooled one was lost before any byte
   * of a response; false when it may not be.
   */
  private boolean retry(CloseCause cause) {
    byte[] head = replay;
    if (head == null || !pair.client().settled()) {
      return false;
    }
    dropReplay();
    replayable = false;
    pair.dropUpstream(cause);
    headForUpstream = head;
    pair.connectUpstream(null); // never the pool: its other connections may be as stale
    return true;
  }

  private void dropReplay() {
    if (replay != null) {
      pair.budget().release(replay.length);
      replay = null;
    }
  }

  private void forwardRequestBody(ByteBuffer data) {
    int n = requestBody.scan(data);
    if (n > 0) {
      pair.client().forward(data.slice(data.position(), n));
      exchange.requestBytes(n);
      data.position(data.position() + n);
    }
    if (requestBody.refusal() != null) {
      refuseMidway(requestBody.refusal().status(), requestBody.refusal().reason());
      return;
    }
    if (requestBody.finished()) {
      requestPhase = RequestPhase.SENT;
      armResponseHeadIfSent();
    }
  }

  /** Keeps the rest of {@code data} until the response under way is done, and stops reading. */
  private void keepWaiting(ByteBuffer data) {
    int n = data.remaining();
    waiting = Leg.appendExact(waiting, data);
    pair.budget().charge(n);
    pair.client().pauseReads();
  }

  private void clientEnded() {
    switch (requestPhase) {
      case HEAD -> {
        if (responsePhase == ResponsePhase.NONE) {
          // Between requests (or inside a head, which can never complete now); the last response
          // may still be on its way to the client: it gets it, then the FIN.
          endAfterFlush(CloseCause.CLIENT_EOF, null);
        } else {
          clientKeepAlive = false; // the response under way still goes back
        }
      }
      case BODY -> {
        if (!requestBody.endOfInput()) {
          pair.close(CloseCause.CLIENT_EOF, "the client ended inside a request body", true);
        }
      }
      case SENT -> clientKeepAlive = false; // its response still goes back, then the FIN
      case DONE -> {}
    }
  }

  // ---- the upstream's bytes ----

  private void fromUpstream(ByteBuffer data) {
    dropReplay(); // the response has begun: the request is not sent again
    while (data.hasRemaining() && pair.isOpen()) {
      switch (responsePhase) {
        case NONE -> {
          pair.close(CloseCause.BAD_RESPONSE, "the upstream sent bytes no request asked for", true);
          return;
        }
        case SETTLING -> {
          upstreamReusable = false; // bytes past its response: never hand it another request
          data.position(data.limit());
          return;
        }
        case HEAD -> {
          if (!readResponseHead(data)) {
            return;
          }
        }
        case BODY -> forwardResponseBody(data);
      }
    }
  }

  private boolean readResponseHead(ByteBuffer data) {
    switch (responses.offer(data)) {
      case HeadResult.NeedMore<ResponseHead> more -> {
        data.position(data.limit());
        chargeHeads();
        return false;
      }
      case HeadResult.Refused<ResponseHead> refused -> {
        answer(502, CloseCause.BAD_RESPONSE, refused.reason());
        return false;
      }
      case HeadResult.Complete<ResponseHead> complete -> {
        chargeHeads();
        data.position(data.position() + complete.consumed());
        return onResponse(complete.head(), data);
      }
    }
  }

  private boolean onResponse(ResponseHead head, ByteBuffer rest) {
    Exchange.Outcome outcome = Exchange.outcome(request, head);
    switch (outcome) {
      case Exchange.Bad bad -> {
        answer(502, CloseCause.BAD_RESPONSE, bad.refusal().reason());
        return false;
      }
      case Exchange.Interim interim -> {
        if (interim.forward()) {
          toClient(head, outcome);
        }
        return true;
      }
      case Exchange.Switch s -> {
        disarm();
        toClient(head, outcome);
        exchange.responseHead(101, pair);
        exchange = ExchangeRecord.done(exchange, pair); // what follows is the pair's tunnel
        switchToRaw(rest);
        return false;
      }
      case Exchange.Final f -> {
        disarm();
        // A client that ended its side, or whose request body is not all read, is not kept; an
        // upstream whose request body is not all read cannot take another request either.
        clientKeepAlive =
            f.clientKeepAlive()
                && requestPhase == RequestPhase.SENT
                && !pair.client().ended()
                && !draining; // its response says Connection: close
        upstreamReusable = f.upstreamReusable() && requestPhase == RequestPhase.SENT;
        Exchange.Final answered =
            clientKeepAlive == f.clientKeepAlive()
                ? f
                : new Exchange.Final(f.body(), false, f.upstreamReusable());
        toClient(head, answered);
        exchange.responseHead(head.status(), pair);
        responseBody = answered.body().reader(502, MAX_TRAILER_BYTES);
        responsePhase = ResponsePhase.BODY;
        if (responseBody.finished()) {
          responseRead(rest);
        }
        return pair.isOpen();
      }
    }
  }

  private void toClient(ResponseHead head, Exchange.Outcome outcome) {
    byte[] bytes =
        HeadWriter.response(head, request, outcome, settings.rewrite().response(), facts());
    responseStarted = true;
    pair.upstream().forward(ByteBuffer.wrap(bytes));
    exchange.responseBytes(bytes.length);
  }

  private void forwardResponseBody(ByteBuffer data) {
    int n = responseBody.scan(data);
    if (n > 0) {
      pair.upstream().forward(data.slice(data.position(), n));
      exchange.responseBytes(n);
      data.position(data.position() + n);
    }
    if (responseBody.refusal() != null) {
      pair.close(CloseCause.BAD_RESPONSE, responseBody.refusal().reason(), true);
      return;
    }
    if (responseBody.finished()) {
      responseRead(data);
    }
  }

  /**
   * The response was read whole; what else that read brought no request asked for (nothing may be
   * taken for the next request's response, which has not even been sent): it is dropped, and the
   * connection is not used again.
   */
  private void responseRead(ByteBuffer rest) {
    if (rest.hasRemaining()) {
      upstreamReusable = false;
      rest.position(rest.limit());
    }
    exchangeDone();
  }

  private void upstreamEnded() {
    switch (responsePhase) {
      case NONE ->
          pair.close(CloseCause.UPSTREAM_EOF, "the upstream closed between requests", false);
      case SETTLING -> upstreamReusable = false;
      case HEAD -> {
        if (responseStarted) {
          pair.close(CloseCause.UPSTREAM_EOF, "the upstream ended after an interim response", true);
        } else if (!retry(CloseCause.UPSTREAM_EOF)) {
          answer(502, CloseCause.BAD_RESPONSE, "the upstream closed before its response head");
        }
      }
      case BODY -> {
        if (responseBody.endOfInput()) {
          exchangeDone(); // a body delimited by the close
        } else {
          pair.close(CloseCause.UPSTREAM_EOF, "the upstream ended inside a response body", true);
        }
      }
    }
  }

  // ---- between exchanges ----

  /** The response was read whole: once nothing is pending either way, the next exchange. */
  private void exchangeDone() {
    exchange = ExchangeRecord.done(exchange, pair);
    responseStarted = false;
    request = null;
    requestBody = null;
    responseBody = null;
    if (!clientKeepAlive && !upstreamReusable) {
      responsePhase = ResponsePhase.NONE;
      endAfterFlush(CloseCause.CLIENT_EOF, null); // nothing is kept: no need to wait
      return;
    }
    responsePhase = ResponsePhase.SETTLING;
    if (pair.settled()) {
      nextExchange();
    } // else onDrained calls it
  }

  /**
   * The upstream connection goes back (or closes); the client's next request is read, or the
   * client's connection ends after its last response.
   */
  private void nextExchange() {
    responsePhase = ResponsePhase.NONE;
    pair.releaseUpstream(pool(), settings.upstreamPool(), upstreamReusable);
    if (!clientKeepAlive || draining) {
      endAfterFlush(CloseCause.CLIENT_EOF, null);
      return;
    }
    requestPhase = RequestPhase.HEAD;
    arm(Deadline.KEEP_ALIVE, pair.owner().timeouts().keepAlive());
    byte[] next = waiting;
    if (next != null) {
      waiting = null;
      pair.budget().release(next.length);
      fromClient(ByteBuffer.wrap(next));
    }
    pair.client().resumeIfWanted();
  }

  private void switchToRaw(ByteBuffer rest) {
    pair.relay(RawRelay.INSTANCE);
    if (rest.hasRemaining()) {
      pair.upstream().forward(rest.slice());
      rest.position(rest.limit());
    }
    byte[] early = waiting;
    if (early != null) {
      waiting = null;
      pair.budget().release(early.length);
      pair.client().forward(ByteBuffer.wrap(early));
    }
    if (pair.client().ended()) {
      pair.upstream().shutdownOutput(); // the client ended before the 101: the tunnel's end too
    }
    pair.client().resumeIfWanted();
  }

  // ---- answers the proxy gives itself ----

  /**
   * Answers {@code status} to the client and ends the connection after it; without a response
   * begun. A response already under way cannot be replaced: the pair is reset instead.
   */
  private void answer(int status, CloseCause cause, String detail) {
    if (responseStarted) {
      pair.close(cause, detail, true);
      return;
    }
    Connection client = pair.client().connection();
    if (client == null || !client.isOpen()) {
      pair.close(cause, detail, true);
      return;
    }
    byte[] bytes = ProxyAnswer.of(status, true);
    client.writeTransient(ByteBuffer.wrap(bytes), null);
    exchange = ExchangeRecord.answered(exchange, pair, status, bytes.length, cause, detail);
    endAfterFlush(cause, detail + " (answered " + status + ")");
  }

  /**
   * Ends the pair once the client has what is queued for it: its output is shut down after the
   * queued bytes, the upstream is closed, and a client that does not close in turn is reset after
   * the linger time.
   */
  private void endAfterFlush(CloseCause cause, String detail) {
    requestPhase = RequestPhase.DONE; // what the client still sends is read and dropped
    releaseHeld();
    arm(Deadline.LINGER, lingerTime());
    pair.endAfterClientFlush(cause, detail, cause != CloseCause.CLIENT_EOF);
    pair.client().resumeIfWanted(); // to see the client close in turn
  }

  private void refuseMidway(int status, String reason) {
    CloseCause cause = status == 502 ? CloseCause.BAD_RESPONSE : CloseCause.BAD_REQUEST;
    answer(status, cause, reason);
  }

  // ---- the budget and the timer ----

  /** Keeps the budget's count of the head readers' bytes exact. */
  private void chargeHeads() {
    int held = requests.heldBytes() + responses.heldBytes();
    int more = held - headBytesCharged;
    if (more > 0) {
      pair.budget().charge(more);
    } else if (more < 0) {
      pair.budget().release(-more);
    }
    headBytesCharged = held;
  }

  private void releaseHeld() {
    dropReplay();
    if (headBytesCharged > 0) {
      pair.budget().release(headBytesCharged);
      headBytesCharged = 0;
    }
    if (waiting != null) {
      pair.budget().release(waiting.length);
      waiting = null;
    }
  }

  @Override
  public void onPairEnded(Pair pair) {
    exchange = ExchangeRecord.cut(exchange, pair);
    disarm();
    releaseHeld();
  }

  private void armResponseHeadIfSent() {
    if (requestPhase == RequestPhase.SENT && responsePhase == ResponsePhase.HEAD) {
      arm(Deadline.RESPONSE_HEAD, pair.owner().timeouts().responseHead());
    }
  }

  private void arm(Deadline what, Duration after) {
    disarm();
    if (after.isZero()) {
      return;
    }
    deadline = what;
    timer = pair.client().loop().schedule(after, this);
  }

  private void disarm() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    deadline = Deadline.NONE;
  }

  /** The timer fired. */
  @Override
  public void run() {
    timer = null;
    Deadline fired = deadline;
    deadline = Deadline.NONE;
    if (fired == Deadline.LINGER) {
      lingerEnded();
      return;
    }
    if (!pair.isOpen()) {
      return;
    }
    switch (fired) {
      case REQUEST_HEAD ->
          answer(408, CloseCause.REQUEST_HEAD_TIMEOUT, "no whole request head in time");
      case KEEP_ALIVE ->
          pair.close(CloseCause.KEEP_ALIVE_TIMEOUT, "idle between requests for too long", false);
      case RESPONSE_HEAD ->
          answer(504, CloseCause.RESPONSE_HEAD_TIMEOUT, "no response head in time");
      case LINGER, NONE -> {}
    }
  }

  /**
   * The linger time passed. While bytes are still queued for the client (a slow download of its
   * last response), the linger does not run: the write stall judges it, as it judges every pair,
   * and a client that took none of them for that long is reset (they cannot go). Once it has been
   * handed everything, a client that did not close in turn is closed, not reset: a reset would drop
   * what its socket's send buffer still holds for it. Nothing once the pair has ended.
   */
  private void lingerEnded() {
    Connection client = pair.client().connection();
    boolean queued = client != null && client.isOpen() && client.pendingWriteBytes() > 0;
    if (queued) {
      Duration stall = pair.owner().timeouts().writeStall();
      long now = client.loop().nanoTime();
      if (stall.isZero() || now - client.lastWriteNanos() < stall.toNanos()) {
        arm(Deadline.LINGER, lingerTime());
        return;
      }
    }
    pair.close(pair.cause(), pair.causeDetail(), queued);
  }

  /**
   * How long a client that has everything gets to close in turn: {@code requestHead}'s time, or
   * with {@code requestHead: none} the idle time (a pair that ends is timed by nothing else).
   */
  private Duration lingerTime() {
    Duration requestHead = pair.owner().timeouts().requestHead();
    return requestHead.isZero() ? pair.owner().timeouts().idle() : requestHead;
  }

  /** What header templates may name, computed once per connection. */
  private ConnectionFacts facts() {
    if (connectionFacts == null) {
      PairFacts f = pair.facts();
      String ip = null;
      int port = 0;
      if (f.clientAddress() instanceof InetSocketAddress inet) {
        ip = inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
        port = inet.getPort();
      }
      Connection client = pair.client().connection();
      connectionFacts =
          new ConnectionFacts(
              ip,
              port,
              client instanceof TlsConnection,
              f.serverName(),
              f.applicationProtocol(),
              f.fingerprint() == null ? null : f.fingerprint().ja3(),
              f.fingerprint() == null ? null : f.fingerprint().ja4());
    }
    return connectionFacts;
  }
}
