package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * The status line (RFC 9112 §4) and the framing a response's fields declare. Whatever the upstream
 * sent wrong is refused with 502: the client gets an answer of the proxy's own, never a response
 * two readers could frame two ways.
 */
final class ResponseSyntax implements HeadSyntax<ResponseHead> {
  static final ResponseSyntax INSTANCE = new ResponseSyntax();

  private static final int BAD_GATEWAY = 502;

  private ResponseSyntax() {}

  @Override
  public boolean skipsLeadingEmptyLines() {
    return false;
  }

  @Override
  public int maxStartLine() {
    return RequestSyntax.MAX_REQUEST_LINE;
  }

  @Override
  public int startLineTooLongStatus() {
    return BAD_GATEWAY;
  }

  @Override
  public int headTooLongStatus() {
    return BAD_GATEWAY;
  }

  @Override
  public int malformedStatus() {
    return BAD_GATEWAY;
  }

  @Override
  public Refusal checkStartLine(ByteBuffer b, int from, int to) {
    if (to - from < 12) {
      return new Refusal(BAD_GATEWAY, "a status line too short: '" + Ascii.text(b, from, to) + "'");
    }
    Refusal version = RequestSyntax.version(b, from, from + 8, BAD_GATEWAY);
    if (version != null) {
      return version;
    }
    if (b.get(from + 8) != Ascii.SP
        || b.get(from + 9) < '1'
        || b.get(from + 9) > '5'
        || !digit(b.get(from + 10))
        || !digit(b.get(from + 11))) {
      return new Refusal(BAD_GATEWAY, "no status code in the status line");
    }
    // The reason phrase may be missing, with or without the space before it.
    if (to > from + 12 && b.get(from + 12) != Ascii.SP) {
      return new Refusal(BAD_GATEWAY, "a status code longer than three digits");
    }
    for (int i = from + 13; i < to; i++) {
      byte c = b.get(i);
      if (!Ascii.fieldVchar(c) && !Ascii.whitespace(c)) {
        return new Refusal(
            BAD_GATEWAY, "a control character " + Ascii.show(c) + " in the reason phrase");
      }
    }
    return null;
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  @Override
  public HeadResult<ResponseHead> build(
      ByteBuffer b, int from, int startEnd, Fields fields, int end, int consumed) {
    HttpVersion version = RequestSyntax.versionOf(b, from);
    int status =
        (b.get(from + 9) - '0') * 100 + (b.get(from + 10) - '0') * 10 + (b.get(from + 11) - '0');
    long length = FramingFields.contentLength(fields);
    FramingFields.Codings codings = FramingFields.transferCodings(fields);
    BodyFraming declared;
    if (codings != FramingFields.Codings.ABSENT) {
      if (version == HttpVersion.HTTP_1_0) {
        return refuse("Transfer-Encoding in an HTTP/1.0 response");
      }
      if (length != FramingFields.ABSENT) {
        return refuse("a response with both Content-Length and Transfer-Encoding");
      }
      declared =
          switch (codings) {
            case CHUNKED_LAST -> BodyFraming.CHUNKED;
            case NOT_CHUNKED, UNKNOWN -> BodyFraming.UNTIL_CLOSE; // RFC 9112 §6.3, item 4
            case CHUNKED_MISPLACED, MALFORMED, ABSENT -> null;
          };
      if (declared == null) {
        return refuse("a malformed Transfer-Encoding in a response");
      }
    } else if (length == FramingFields.INVALID) {
      return refuse("an invalid Content-Length in a response (or several that differ)");
    } else if (length >= 0) {
      declared = new BodyFraming.Length(length);
    } else {
      declared = BodyFraming.UNTIL_CLOSE;
    }
    boolean close = fields.hasToken("connection", "close");
    boolean keepAlive =
        version == HttpVersion.HTTP_1_1
            ? !close
            : !close && fields.hasToken("connection", "keep-alive");
    return new HeadResult.Complete<>(
        new ResponseHead(
            version,
            status,
            startEnd > from + 13 ? Ascii.text(b, from + 13, startEnd) : "",
            fields,
            end - from,
            declared,
            keepAlive),
        consumed);
  }

  private static HeadResult<ResponseHead> refuse(String reason) {
    return new HeadResult.Refused<>(new Refusal(BAD_GATEWAY, reason));
  }
}
