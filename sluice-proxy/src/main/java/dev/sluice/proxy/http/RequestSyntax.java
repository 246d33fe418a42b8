package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * The request line (RFC 9112 §3) and what a request's fields must say together: exactly one valid
 * Host in HTTP/1.1 (at most one in 1.0), one body framing that no two readers could take two ways.
 */
final class RequestSyntax implements HeadSyntax<RequestHead> {
  static final RequestSyntax INSTANCE = new RequestSyntax();

  /** The longest request line, CRLF excluded (RFC 9112 §3 recommends at least 8000). */
  static final int MAX_REQUEST_LINE = 8192;

  private static final int BAD = 400;

  private RequestSyntax() {}

  @Override
  public boolean skipsLeadingEmptyLines() {
    return true;
  }

  @Override
  public int maxStartLine() {
    return MAX_REQUEST_LINE;
  }

  @Override
  public int startLineTooLongStatus() {
    return 414;
  }

  @Override
  public int headTooLongStatus() {
    return 431;
  }

  @Override
  public int malformedStatus() {
    return BAD;
  }

  @Override
  public Refusal checkStartLine(ByteBuffer b, int from, int to) {
    int sp1 = from;
    while (sp1 < to && Ascii.tchar(b.get(sp1))) {
      sp1++;
    }
    if (sp1 == from) {
      return new Refusal(BAD, "a request line without a method");
    }
    if (sp1 == to) {
      return new Refusal(BAD, "a request line with only a method");
    }
    if (b.get(sp1) != Ascii.SP) {
      return new Refusal(BAD, "an invalid character " + Ascii.show(b.get(sp1)) + " in the method");
    }
    int sp2 = sp1 + 1;
    while (sp2 < to && b.get(sp2) != Ascii.SP) {
      int c = b.get(sp2) & 0xff;
      if (c <= 0x20 || c >= 0x7f) {
        return new Refusal(BAD, "an invalid character " + Ascii.show(c) + " in the request target");
      }
      sp2++;
    }
    if (sp2 == sp1 + 1) {
      return new Refusal(BAD, "an empty request target (or two spaces after the method)");
    }
    if (sp2 == to) {
      return new Refusal(BAD, "a request line without a version");
    }
    return version(b, sp2 + 1, to, BAD);
  }

  /** Checks {@code HTTP/d.d}: 505 for a version other than 1.x, {@code malformed} otherwise. */
  static Refusal version(ByteBuffer b, int from, int to, int malformed) {
    if (to - from != 8
        || b.get(from) != 'H'
        || b.get(from + 1) != 'T'
        || b.get(from + 2) != 'T'
        || b.get(from + 3) != 'P'
        || b.get(from + 4) != '/'
        || !digit(b.get(from + 5))
        || b.get(from + 6) != '.'
        || !digit(b.get(from + 7))) {
      return new Refusal(
          malformed, "not an HTTP version: '" + Ascii.text(b, from, Math.min(to, from + 16)) + "'");
    }
    if (b.get(from + 5) != '1') {
      return new Refusal(
          malformed == BAD ? 505 : malformed,
          "HTTP version "
              + (char) b.get(from + 5)
              + "."
              + (char) b.get(from + 7)
              + " (this proxy speaks HTTP/1)");
    }
    return null;
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  static HttpVersion versionOf(ByteBuffer b, int from) {
    return b.get(from + 7) == '0' ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
  }

  @Override
  public HeadResult<RequestHead> build(
      ByteBuffer b, int from, int startEnd, Fields fields, int end, int consumed) {
    int sp1 = from;
    while (b.get(sp1) != Ascii.SP) {
      sp1++;
    }
    int sp2 = sp1 + 1;
    while (b.get(sp2) != Ascii.SP) {
      sp2++;
    }
    String method = Ascii.text(b, from, sp1);
    String target = Ascii.text(b, sp1 + 1, sp2);
    HttpVersion version = versionOf(b, sp2 + 1);
    boolean connect = method.equals("CONNECT");

    // Host: one in 1.1 (RFC 9112 §3.2), never two; well formed.
    int hosts = fields.count("host");
    if (hosts > 1) {
      return refuse("more than one Host field");
    }
    if (hosts == 0 && version == HttpVersion.HTTP_1_1) {
      return refuse("an HTTP/1.1 request without Host");
    }
    String host = hosts == 0 ? "" : fields.first("host");
    if (!Authority.valid(host, true)) {
      return refuse("an invalid Host '" + host + "'");
    }

    // The target's form.
    TargetForm form;
    String authority = host;
    String path = target;
    if (connect) {
      form = TargetForm.AUTHORITY;
    } else if (target.charAt(0) == '/') {
      form = TargetForm.ORIGIN;
    } else if (target.equals("*")) {
      if (!method.equals("OPTIONS")) {
        return refuse("an asterisk target on a " + method + " request (OPTIONS only)");
      }
      form = TargetForm.ASTERISK;
    } else {
      int schemeEnd = target.indexOf("://");
      String scheme = schemeEnd < 0 ? "" : target.substring(0, schemeEnd);
      if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
        return refuse("a request target that is neither a path nor an http(s) URI");
      }
      int authorityEnd = schemeEnd + 3;
      while (authorityEnd < target.length() && "/?".indexOf(target.charAt(authorityEnd)) < 0) {
        authorityEnd++;
      }
      authority = target.substring(schemeEnd + 3, authorityEnd);
      if (authority.indexOf('@') >= 0) {
        return refuse("user information in the request target");
      }
      if (authority.isEmpty() || !Authority.valid(authority, false)) {
        return refuse("an invalid authority in the request target '" + authority + "'");
      }
      String rest = target.substring(authorityEnd);
      path = rest.isEmpty() ? "/" : rest.charAt(0) == '?' ? "/" + rest : rest;
      form = TargetForm.ABSOLUTE;
    }
    if (target.indexOf('#') >= 0) {
      return refuse("a fragment in the request target");
    }

    // The body (RFC 9112 §6.3): chunked last, or one agreed length, or none; never both.
    long length = FramingFields.contentLength(fields);
    FramingFields.Codings codings = FramingFields.transferCodings(fields);
    BodyFraming framing;
    if (codings != FramingFields.Codings.ABSENT) {
      if (version == HttpVersion.HTTP_1_0) {
        return refuse("Transfer-Encoding in an HTTP/1.0 request");
      }
      if (length != FramingFields.ABSENT) {
        return refuse("both Content-Length and Transfer-Encoding");
      }
      switch (codings) {
        case UNKNOWN -> {
          return new HeadResult.Refused<>(
              new Refusal(501, "a transfer coding this proxy does not know"));
        }
        case MALFORMED -> {
          return refuse("a malformed Transfer-Encoding");
        }
        case NOT_CHUNKED, CHUNKED_MISPLACED -> {
          return refuse("a Transfer-Encoding whose last coding is not chunked (or chunked twice)");
        }
        case CHUNKED_LAST, ABSENT -> {}
      }
      framing = BodyFraming.CHUNKED;
    } else if (length == FramingFields.INVALID) {
      return refuse("an invalid Content-Length (or several that differ)");
    } else if (length > 0) {
      framing = new BodyFraming.Length(length);
    } else {
      framing = BodyFraming.NONE;
    }

    boolean close = fields.hasToken("connection", "close");
    boolean keepAlive =
        version == HttpVersion.HTTP_1_1
            ? !close
            : !close && fields.hasToken("connection", "keep-alive");
    boolean expectContinue =
        version == HttpVersion.HTTP_1_1 && "100-continue".equalsIgnoreCase(fields.first("expect"));
    boolean upgrade =
        version == HttpVersion.HTTP_1_1
            && !connect
            && fields.count("upgrade") > 0
            && fields.hasToken("connection", "upgrade")
            && !fields.hasToken("upgrade", "h2c");
    return new HeadResult.Complete<>(
        new RequestHead(
            method,
            target,
            form,
            authority,
            path,
            version,
            fields,
            end - from,
            framing,
            keepAlive,
            expectContinue,
            upgrade),
        consumed);
  }

  private static HeadResult<RequestHead> refuse(String reason) {
    return new HeadResult.Refused<>(new Refusal(BAD, reason));
  }
}
