/**
 * HTTP/1 protocol logic for the proxy's HTTP path, as pure code over bytes (no sockets): reading
 * heads, following bodies, deciding what a response means, rewriting heads and routing requests.
 *
 * <p>How a relay drives it from each read (a view of the loop's read slab):
 *
 * <ol>
 *   <li>Client bytes while no request is under way go to a {@link
 *       dev.sluice.proxy.http.HeadReader#requests request reader}. {@code NeedMore}: the reader
 *       holds the partial head (exact size, {@link dev.sluice.proxy.http.HeadReader#heldBytes()} to
 *       charge to the in-flight budget); {@code Refused}: answer {@link
 *       dev.sluice.proxy.http.ProxyAnswer#of} with its status and close, logging its reason; {@code
 *       Complete}: the head (valid until the read's callback returns when it lay in the slab) and
 *       how many bytes it took.
 *   <li>A complete request: CONNECT gets 405; {@link dev.sluice.proxy.http.HttpRoutes} names the
 *       cluster; {@link dev.sluice.proxy.http.HeadWriter#request} makes the upstream's head (the
 *       one thing kept while the upstream connects); {@link
 *       dev.sluice.proxy.http.BodyFraming#reader} follows the body, saying how many of the next
 *       bytes are the body's, to forward as they come. Bytes after the body are the next request
 *       (pipelining).
 *   <li>Upstream bytes go to a {@link dev.sluice.proxy.http.HeadReader#responses response reader};
 *       {@link dev.sluice.proxy.http.Exchange#outcome} says what a response head means (interim, a
 *       switch to raw relaying, a final response with its body and whether each connection stays
 *       open, or a 502); {@link dev.sluice.proxy.http.HeadWriter#response} writes the client's
 *       head.
 * </ol>
 *
 * <p>Between requests a reader holds no bytes and a body reader is not needed: an idle keep-alive
 * connection holds no buffer on this path.
 */
package dev.sluice.proxy.http;
