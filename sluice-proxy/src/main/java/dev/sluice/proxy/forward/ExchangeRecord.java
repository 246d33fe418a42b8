package dev.sluice.proxy.forward;

import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;

/**
 * What one HTTP request and its response did, for the request's access log line and the
 * request-duration histogram: the request's method, host, path and route, the upstream its head
 * went to, the status the client got, the bytes each way and the times. The HTTP relay fills it in
 * as the exchange goes (one-line calls at the points where each fact appears) and hands it to the
 * pair's owner when the exchange ends: its response is done, the proxy answered, the connection
 * switched protocols, or the pair ended midway. A record exists only from the first byte of a
 * request head to that end: a keep-alive connection idle between requests holds none.
 *
 * <p>Times are the loop's clock ({@link dev.sluice.net.EventLoop#nanoTime}, read once per
 * callback). Loop thread only; it does not change after it was handed on.
 */
public final class ExchangeRecord {
  private static final long NEVER = Long.MIN_VALUE;

  private final long startNanos;
  private long endNanos;
  private String method;
  private String host;
  private String path;
  private HttpVersion version;
  private String route;
  private Pair.Upstream upstream;
  private long sentUpstreamNanos = NEVER;
  private long responseHeadNanos = NEVER;
  private int status;
  private long requestBytes;
  private long responseBytes;
  private CloseCause cause;
  private String detail;

  private ExchangeRecord(long startNanos) {
    this.startNanos = startNanos;
  }

  // ---- what the relay tells, as it happens ----

  /**
   * {@code bytes} of a request head arrived: the record of the request they belong to, begun now if
   * none is under way. They count as the request's bytes until its head is read whole.
   */
  static ExchangeRecord reading(ExchangeRecord current, Pair pair, int bytes) {
    ExchangeRecord r = current != null ? current : new ExchangeRecord(now(pair));
    r.requestBytes += bytes;
    return r;
  }

  /** The request's head was read whole. */
  void request(RequestHead head) {
    method = head.method();
    host = head.authority();
    path = head.path();
    version = head.version();
    requestBytes = head.length(); // the bytes counted while it arrived held the body's too
  }

  /** The request was routed to {@code cluster}. */
  void route(String cluster) {
    route = cluster;
  }

  /** The request's head went to the pair's upstream: the upstream time starts. */
  void sentUpstream(Pair pair) {
    upstream = pair.facts().target();
    sentUpstreamNanos = now(pair);
  }

  /** {@code n} bytes of the request's body went on. */
  void requestBytes(int n) {
    requestBytes += n;
  }

  /** The upstream's final (or 101) response head of {@code status} came. */
  void responseHead(int status, Pair pair) {
    this.status = status;
    responseHeadNanos = now(pair);
  }

  /** {@code n} bytes of the response (head or body) went to the client. */
  void responseBytes(int n) {
    responseBytes += n;
  }

  /**
   * The exchange is over (its response went to the client whole, or a 101 made the connection a
   * tunnel): reported; the relay holds null from now on.
   */
  static ExchangeRecord done(ExchangeRecord current, Pair pair) {
    if (current != null) {
      current.end(pair);
    }
    return null;
  }

  /**
   * The proxy answered {@code status} itself ({@code bytes} of it) for {@code cause}: the record of
   * the request under way, or of one whose head never came whole (begun when the client connected,
   * when no byte of it came), is reported.
   */
  static ExchangeRecord answered(
      ExchangeRecord current, Pair pair, int status, int bytes, CloseCause cause, String detail) {
    ExchangeRecord r = current != null ? current : new ExchangeRecord(pair.facts().openedNanos());
    r.status = status;
    r.responseBytes += bytes;
    r.cause = cause;
    r.detail = detail;
    r.end(pair);
    return null;
  }

  /** The pair ended with the exchange under way: reported with the pair's cause. */
  static ExchangeRecord cut(ExchangeRecord current, Pair pair) {
    if (current != null) {
      current.cause = pair.cause();
      current.detail = pair.causeDetail();
      current.end(pair);
    }
    return null;
  }

  private void end(Pair pair) {
    endNanos = now(pair);
    pair.facts().exchangeEnded();
    pair.owner().onHttpExchange(pair, this);
  }

  private static long now(Pair pair) {
    return pair.client().loop().nanoTime();
  }

  // ---- what the access log and the metrics read ----

  /** The method, or null when no head was read whole. */
  public String method() {
    return method;
  }

  /** The host (and port) the request named, or null when no head was read whole. */
  public String host() {
    return host;
  }

  /** The path (and query) as sent upstream, or null when no head was read whole. */
  public String path() {
    return path;
  }

  /** The request's version, or null when no head was read whole. */
  public HttpVersion version() {
    return version;
  }

  /** The cluster the request was routed to, or null before it was routed. */
  public String route() {
    return route;
  }

  /** The upstream its head went to, or null when it went to none. */
  public Pair.Upstream upstream() {
    return upstream;
  }

  /** The status the client got (the upstream's or the proxy's), or 0 when it got none. */
  public int status() {
    return status;
  }

  /** Whether the client got a response head (then the responses counter and histogram count it). */
  public boolean hasResponse() {
    return status != 0;
  }

  /**
   * The request's bytes as the client sent them: its head and body (or the head's bytes so far).
   */
  public long requestBytes() {
    return requestBytes;
  }

  /** The response's bytes as handed to the client: head (interim ones included) and body. */
  public long responseBytes() {
    return responseBytes;
  }

  /** From the head going upstream to the response head coming back, or -1 when none came. */
  public long upstreamNanos() {
    return sentUpstreamNanos == NEVER || responseHeadNanos == NEVER
        ? -1
        : responseHeadNanos - sentUpstreamNanos;
  }

  /** From the first byte of the request (or the connect, when none came) to the exchange's end. */
  public long durationNanos() {
    return endNanos - startNanos;
  }

  /** Why the proxy answered itself or the exchange was cut; null when it ended normally. */
  public CloseCause cause() {
    return cause;
  }

  /** The words behind the cause, or null. */
  public String detail() {
    return detail;
  }
}
