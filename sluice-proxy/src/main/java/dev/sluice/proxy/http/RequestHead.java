package dev.sluice.proxy.http;

/**
 * A parsed request head. Its {@link #fields()} view the bytes it was read from (see {@link
 * Fields}); its strings are its own.
 *
 * @param method the method, as sent (case-sensitive)
 * @param target the request target, as sent
 * @param form the target's form
 * @param authority the host (and port) the request is for: the absolute form's authority if the
 *     target has one (it overrides Host, RFC 9112 §3.2.2), else the Host field ("" when an HTTP/1.0
 *     request has none)
 * @param path the target as the upstream is to get it: the absolute form's path and query ({@code
 *     /} when it has none); other forms as sent
 * @param version the version
 * @param fields the header fields
 * @param length the head's bytes, from the request line to the empty line that ends it
 * @param framing how the body is delimited (none, a length, chunked)
 * @param keepAlive whether the client wants the connection kept open after the response (RFC 9112
 *     §9.3): HTTP/1.1 unless {@code Connection: close}; HTTP/1.0 only with {@code keep-alive}
 * @param expectContinue an HTTP/1.1 request with {@code Expect: 100-continue}: the client may wait
 *     for a 100 before sending the body
 * @param upgrade an HTTP/1.1 request asking to switch protocols ({@code Upgrade} named in {@code
 *     Connection}; never h2c, which would carry requests past this proxy's routing)
 */
public record RequestHead(
    String method,
    String target,
    TargetForm form,
    String authority,
    String path,
    HttpVersion version,
    Fields fields,
    int length,
    BodyFraming framing,
    boolean keepAlive,
    boolean expectContinue,
    boolean upgrade) {

  /** A CONNECT request: the proxy answers 405 (it does not tunnel). */
  public boolean isConnect() {
    return method.equals("CONNECT");
  }

  /** A HEAD request: its response has no body whatever its fields say. */
  public boolean isHead() {
    return method.equals("HEAD");
  }
}
