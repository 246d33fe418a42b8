package dev.sluice.proxy.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes the head a parsed one becomes on the other side of the proxy, as one byte array of exactly
 * its size: the request for the upstream, the response for the client. Fields the proxy keeps are
 * copied as they were sent; the proxy writes Host, Content-Length (once, however many identical
 * ones came), Connection and the X-Forwarded fields itself.
 *
 * <p>Removed on the way, both ways: the hop-by-hop fields (Connection, Keep-Alive,
 * Proxy-Connection, TE, Upgrade unless the exchange upgrades, HTTP2-Settings) and every field the
 * Connection field names (RFC 9110 §7.6.1), except Host, Content-Length and Transfer-Encoding,
 * which a client cannot make the proxy drop.
 */
public final class HeadWriter {
  private HeadWriter() {}

  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "keep-alive", "proxy-connection", "te", "upgrade", "http2-settings");
  private static final Set<String> FORWARDING =
      Set.of("x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded");
  private static final Set<String> NOT_DROPPABLE =
      Set.of("host", "content-length", "transfer-encoding");

  /**
   * The request for the upstream: origin-form target (an absolute target's path, its authority as
   * Host), the client's version, the rewrite applied.
   *
   * @param keepUpstream whether the upstream connection is to stay open for another request
   */
  public static byte[] request(
      RequestHead head, HeaderRewrite rewrite, ConnectionFacts facts, boolean keepUpstream) {
    Fields fields = head.fields();
    ForwardedFor mode = rewrite.forwardedFor();
    HeaderEdits edits = rewrite.request();
    Set<String> named = connectionOptions(fields);
    List<Object> lines = new ArrayList<>(fields.size() + 8);
    if (!head.authority().isEmpty() || head.version() == HttpVersion.HTTP_1_1) {
      lines.add(head.authority().isEmpty() ? "Host:" : "Host: " + head.authority());
    }
    StringBuilder forwardedFor = null;
    for (int i = 0; i < fields.size(); i++) {
      String name = fields.lowerName(i);
      if (mode == ForwardedFor.APPEND && name.equals("x-forwarded-for")) {
        forwardedFor =
            forwardedFor == null
                ? new StringBuilder(fields.value(i))
                : forwardedFor.append(", ").append(fields.value(i));
        continue;
      }
      boolean drop =
          name.equals("host")
              || name.equals("content-length")
              || hopByHop(name, named, head.upgrade())
              || (mode == ForwardedFor.REPLACE && FORWARDING.contains(name))
              || edits.drops(name);
      if (!drop) {
        lines.add(i);
      }
    }
    contentLength(fields, head.framing(), lines);
    if (mode != ForwardedFor.OFF && facts.clientIp() != null) {
      String ip = facts.clientIp();
      lines.add(
          "X-Forwarded-For: "
              + (forwardedFor == null || forwardedFor.isEmpty() ? ip : forwardedFor + ", " + ip));
      if (mode == ForwardedFor.REPLACE || fields.count("x-forwarded-proto") == 0) {
        lines.add("X-Forwarded-Proto: " + (facts.tls() ? "https" : "http"));
      }
      if (!head.authority().isEmpty()
          && (mode == ForwardedFor.REPLACE || fields.count("x-forwarded-host") == 0)) {
        lines.add("X-Forwarded-Host: " + head.authority());
      }
    } else if (forwardedFor != null) {
      lines.add("X-Forwarded-For: " + forwardedFor);
    }
    if (head.upgrade()) {
      lines.add("Connection: upgrade");
    } else if (!keepUpstream) {
      lines.add("Connection: close");
    } else if (head.version() == HttpVersion.HTTP_1_0) {
      lines.add("Connection: keep-alive");
    }
    set(edits, facts, lines);
    String start =
        head.method()
            + ' '
            + (head.form() == TargetForm.ABSOLUTE ? head.path() : head.target())
            + ' '
            + head.version().text();
    return write(start, fields, lines);
  }

  /**
   * The response for the client: its status line, the response edits applied, and the Connection
   * field the outcome calls for ({@code close} when the client connection ends after it, {@code
   * keep-alive} to an HTTP/1.0 client it stays open for, {@code upgrade} on a switch).
   */
  public static byte[] response(
      ResponseHead head,
      RequestHead request,
      Exchange.Outcome outcome,
      HeaderEdits edits,
      ConnectionFacts facts) {
    Fields fields = head.fields();
    boolean switching = outcome instanceof Exchange.Switch;
    Set<String> named = connectionOptions(fields);
    List<Object> lines = new ArrayList<>(fields.size() + 4);
    for (int i = 0; i < fields.size(); i++) {
      String name = fields.lowerName(i);
      if (!name.equals("content-length")
          && !hopByHop(name, named, switching)
          && !edits.drops(name)) {
        lines.add(i);
      }
    }
    contentLength(fields, head.declared(), lines);
    switch (outcome) {
      case Exchange.Switch _ -> lines.add("Connection: upgrade");
      case Exchange.Final f when !f.clientKeepAlive() -> lines.add("Connection: close");
      case Exchange.Final _ when request.version() == HttpVersion.HTTP_1_0 ->
          lines.add("Connection: keep-alive");
      case Exchange.Final _, Exchange.Interim _, Exchange.Bad _ -> {}
    }
    set(edits, facts, lines);
    String start =
        head.version().text()
            + ' '
            + head.status()
            + (head.reason().isEmpty() ? " " : " " + head.reason());
    return write(start, fields, lines);
  }

  /** The lower-case names the Connection fields list as options of this connection. */
  private static Set<String> connectionOptions(Fields fields) {
    Set<String> named = null;
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.is(i, "connection")) {
        continue;
      }
      for (String option : fields.value(i).split(",")) {
        String name = option.strip().toLowerCase(java.util.Locale.ROOT);
        if (!name.isEmpty() && !NOT_DROPPABLE.contains(name)) {
          if (named == null) {
            named = new HashSet<>();
          }
          named.add(name);
        }
      }
    }
    return named == null ? Set.of() : named;
  }

  private static boolean hopByHop(String name, Set<String> named, boolean upgrading) {
    if (upgrading && name.equals("upgrade")) {
      return false;
    }
    return HOP_BY_HOP.contains(name) || named.contains(name);
  }

  /** One Content-Length, where the sender sent any and the body is not chunked. */
  private static void contentLength(Fields fields, BodyFraming framing, List<Object> lines) {
    if (framing instanceof BodyFraming.Chunked) {
      return;
    }
    long length = FramingFields.contentLength(fields);
    if (length >= 0) {
      lines.add("Content-Length: " + length);
    }
  }

  private static void set(HeaderEdits edits, ConnectionFacts facts, List<Object> lines) {
    for (var e : edits.set().entrySet()) {
      String value = e.getValue().expand(facts);
      if (value != null) {
        lines.add(e.getKey() + ": " + value);
      }
    }
  }

  /** The start line, the lines (field indexes to copy, or text), the empty line: exact size. */
  private static byte[] write(String start, Fields fields, List<Object> lines) {
    int size = start.length() + 2 + 2;
    for (Object line : lines) {
      size += line instanceof Integer i ? fields.lineLength(i) : ((String) line).length() + 2;
    }
    byte[] out = new byte[size];
    int at = text(start, out, 0);
    for (Object line : lines) {
      at = line instanceof Integer i ? fields.copyLine(i, out, at) : text((String) line, out, at);
    }
    out[at++] = Ascii.CR;
    out[at++] = Ascii.LF;
    if (at != size) {
      throw new IllegalStateException("wrote " + at + " of " + size + " bytes");
    }
    return out;
  }

  private static int text(String line, byte[] out, int at) {
    byte[] bytes = line.getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(bytes, 0, out, at, bytes.length);
    out[at + bytes.length] = Ascii.CR;
    out[at + bytes.length + 1] = Ascii.LF;
    return at + bytes.length + 2;
  }
}
