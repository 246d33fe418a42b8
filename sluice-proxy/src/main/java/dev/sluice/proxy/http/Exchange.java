package dev.sluice.proxy.http;

/**
 * What a response head means for the request it answers and for both connections (RFC 9112 §6.3,
 * §9.3; RFC 9110 §15.2): the one decision the relay makes per response head.
 */
public final class Exchange {
  private Exchange() {}

  /** The decision. */
  public sealed interface Outcome {}

  /**
   * An interim response (1xx other than 101): no body, and the final response follows. {@code
   * forward} is false for an HTTP/1.0 client, which must not get one (RFC 9110 §15.2).
   */
  public record Interim(boolean forward) implements Outcome {}

  /** 101 to a request that asked to upgrade: forward the head, then relay raw bytes both ways. */
  public record Switch() implements Outcome {}

  /**
   * The final response: its body, whether the client connection stays open after it, and whether
   * the upstream connection may carry another request.
   */
  public record Final(BodyFraming body, boolean clientKeepAlive, boolean upstreamReusable)
      implements Outcome {}

  /** A response that cannot answer this request: the client gets 502. */
  public record Bad(Refusal refusal) implements Outcome {}

  public static Outcome outcome(RequestHead request, ResponseHead response) {
    int status = response.status();
    if (status == 101) {
      return request.upgrade()
          ? new Switch()
          : new Bad(new Refusal(502, "a 101 to a request that asked for no upgrade"));
    }
    if (status < 200) {
      return new Interim(request.version() == HttpVersion.HTTP_1_1);
    }
    BodyFraming body =
        request.isHead() || status == 204 || status == 304 ? BodyFraming.NONE : response.declared();
    boolean delimitedByClose = body instanceof BodyFraming.UntilClose;
    return new Final(
        body,
        request.keepAlive() && !delimitedByClose,
        response.keepAlive() && !delimitedByClose && !request.upgrade());
  }
}
