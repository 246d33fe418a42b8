package dev.sluice.proxy.http;

/**
 * A parsed response head. Its {@link #fields()} view the bytes it was read from (see {@link
 * Fields}). What its body is depends on the request too (a HEAD's response has none): {@link
 * Exchange#outcome} decides.
 *
 * @param version the version
 * @param status the status code, 100..599
 * @param reason the reason phrase, as sent ("" when none)
 * @param fields the header fields
 * @param length the head's bytes, from the status line to the empty line that ends it
 * @param declared the body its fields declare: a length, chunked, or until close
 * @param keepAlive whether the upstream keeps the connection open after it (RFC 9112 §9.3)
 */
public record ResponseHead(
    HttpVersion version,
    int status,
    String reason,
    Fields fields,
    int length,
    BodyFraming declared,
    boolean keepAlive) {}
