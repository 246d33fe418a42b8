package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * Reads one head after another from a connection's reads, as they arrive in pieces (RFC 9112 §2):
 * offer it each read's bytes and it answers {@link HeadResult.Complete} with the head and how many
 * of the bytes were the head's (the rest is the body or the next message: a pipelined request is
 * not touched), {@link HeadResult.NeedMore}, or {@link HeadResult.Refused}.
 *
 * <p>Memory: a head that arrives whole within one read is parsed where it lies, in the read's
 * buffer, and nothing is kept. Only a head begun and not finished in one read is copied, at exact
 * size; the next read's bytes of the head are appended by making one exact-size copy of both (so it
 * holds exactly the bytes received, never a buffer sized for the worst case). When no head is under
 * way — a keep-alive connection idle between requests — it holds no bytes at all. Each byte is
 * checked once: a line already validated is not validated again when more bytes arrive.
 *
 * <p>Bounds: a start line longer than {@code maxStartLine} (8 KiB for requests) is refused as soon
 * as it is seen to be (414 for a request), a head longer than {@code maxHeadBytes} (start line,
 * fields and the final empty line) likewise (431 for a request); both are refused before the bytes
 * beyond them are copied.
 *
 * <p>Every line must end in CRLF: a bare LF and a bare CR are refused, as are obs-fold, whitespace
 * before a field's colon or before the first field, invalid name characters and CR, LF, NUL or any
 * other control character (HTAB aside) in a value. A refusal ends the connection; the reader is not
 * to be offered more.
 */
public final class HeadReader<H> {
  private final HeadSyntax<H> syntax;
  private final int maxHeadBytes;

  /** The bytes of a head begun in earlier reads, exact size; null when no head is under way. */
  private byte[] partial;

  /** Where the unfinished line of {@link #partial} begins: every byte before it is validated. */
  private int checked;

  /** Complete lines in {@link #partial} (the start line among them). */
  private int lines;

  /** The smallest bound on a head: room for a request line and a Host field, a little more. */
  public static final int MIN_MAX_HEAD_BYTES = 256;

  HeadReader(HeadSyntax<H> syntax, int maxHeadBytes) {
    if (maxHeadBytes < MIN_MAX_HEAD_BYTES) {
      throw new IllegalArgumentException(
          "maxHeadBytes must be at least " + MIN_MAX_HEAD_BYTES + ", not " + maxHeadBytes);
    }
    this.syntax = syntax;
    this.maxHeadBytes = maxHeadBytes;
  }

  /** A reader of request heads (RFC 9112 §3) of at most {@code maxHeadBytes}. */
  public static HeadReader<RequestHead> requests(int maxHeadBytes) {
    return new HeadReader<>(RequestSyntax.INSTANCE, maxHeadBytes);
  }

  /** A reader of response heads (RFC 9112 §4) of at most {@code maxHeadBytes}. */
  public static HeadReader<ResponseHead> responses(int maxHeadBytes) {
    return new HeadReader<>(ResponseSyntax.INSTANCE, maxHeadBytes);
  }

  /** The bytes held for a head under way (0 when none is): what the in-flight budget counts. */
  public int heldBytes() {
    return partial == null ? 0 : partial.length;
  }

  /**
   * Reads the bytes between {@code in}'s position and limit (neither is moved). A completed head
   * views {@code in} when it arrived within this read: use it before {@code in} is reused.
   */
  public HeadResult<H> offer(ByteBuffer in) {
    int p = in.position();
    int n = in.remaining();
    int skipped = 0;
    if (partial == null && syntax.skipsLeadingEmptyLines()) {
      while (skipped + 1 < n
          && in.get(p + skipped) == Ascii.CR
          && in.get(p + skipped + 1) == Ascii.LF) {
        skipped += 2;
      }
    }
    if (skipped == n) {
      return new HeadResult.NeedMore<>();
    }
    byte[] held = partial;
    int heldLength = held == null ? 0 : held.length;
    int inFrom = p + skipped;
    int total = heldLength + n - skipped;

    // Find the line ends after the last one seen; stop at the empty line that ends the head.
    int headStart = 0;
    int lineStart = checked;
    int lineCount = lines;
    int startLineEnd = -1; // just after the start line's LF, when it ends in these bytes
    int end = -1;
    for (int v = heldLength; v < total; v++) {
      if (in.get(inFrom + v - heldLength) != Ascii.LF) {
        continue;
      }
      boolean empty = v == lineStart + 1 && at(held, in, inFrom, lineStart) == Ascii.CR;
      if (empty && lineCount == 0 && syntax.skipsLeadingEmptyLines()) {
        headStart = v + 1; // only a CR held over and its LF here: skip it like the others
        lineStart = v + 1;
        continue;
      }
      if (empty && lineCount > 0) {
        end = v + 1;
        break;
      }
      if (lineCount == 0) {
        startLineEnd = v + 1;
      }
      lineCount++;
      lineStart = v + 1;
      if (v + 1 - headStart > maxHeadBytes) {
        break; // refused below, without looking further
      }
    }

    // Bounds, before anything is copied.
    int startLineLength =
        lineCount == 0 ? total - headStart : startLineEnd < 0 ? 0 : startLineEnd - headStart - 2;
    if (startLineLength > syntax.maxStartLine()) {
      return refuse(
          syntax.startLineTooLongStatus(),
          "a start line longer than " + syntax.maxStartLine() + " bytes");
    }
    int headLength = (end < 0 ? total : end) - headStart;
    if (headLength > maxHeadBytes) {
      return refuse(syntax.headTooLongStatus(), "a head longer than " + maxHeadBytes + " bytes");
    }

    // The bytes to validate and parse: in place, or an exact-size copy of held and new bytes.
    ByteBuffer b;
    int shift; // index in b = virtual position + shift
    int upTo = end < 0 ? total : end;
    if (held == null) {
      b = in;
      shift = inFrom;
    } else {
      byte[] joined = new byte[upTo - headStart];
      int fromHeld = Math.max(0, heldLength - headStart);
      System.arraycopy(held, Math.min(headStart, heldLength), joined, 0, fromHeld);
      in.get(
          inFrom + Math.max(0, headStart - heldLength), joined, fromHeld, joined.length - fromHeld);
      b = ByteBuffer.wrap(joined);
      shift = -headStart;
    }

    // Validate the lines completed by these bytes.
    int validatedEnd = (end < 0 ? lineStart : end);
    int line = Math.max(checked, headStart);
    int index = lines;
    while (line < validatedEnd) {
      int lf = line;
      while (b.get(lf + shift) != Ascii.LF) {
        lf++;
      }
      if (end >= 0 && lf + 1 == end) {
        break; // the empty line that ends the head
      }
      Refusal refusal = checkLine(b, line + shift, lf + shift, index);
      if (refusal != null) {
        return refused(refusal);
      }
      index++;
      line = lf + 1;
    }

    if (end < 0) {
      partial = held == null ? copy(in, inFrom + headStart, upTo - headStart) : b.array();
      checked = lineStart - headStart;
      lines = lineCount;
      return new HeadResult.NeedMore<>();
    }
    partial = null;
    checked = 0;
    lines = 0;
    int from = headStart + shift;
    int startEnd = from;
    while (b.get(startEnd) != Ascii.LF) {
      startEnd++;
    }
    Fields fields = Fields.of(b, startEnd + 1, end + shift, lineCount - 1);
    int consumed = skipped + end - heldLength;
    return syntax.build(b, from, startEnd - 1, fields, end + shift, consumed);
  }

  private static byte at(byte[] held, ByteBuffer in, int inFrom, int v) {
    int heldLength = held == null ? 0 : held.length;
    return v < heldLength ? held[v] : in.get(inFrom + v - heldLength);
  }

  private static byte[] copy(ByteBuffer in, int from, int length) {
    byte[] bytes = new byte[length];
    in.get(from, bytes);
    return bytes;
  }

  /**
   * Checks one complete line {@code [from, lf]}: the start line when {@code index} is 0, a field
   * line otherwise.
   */
  private Refusal checkLine(ByteBuffer b, int from, int lf, int index) {
    int malformed = syntax.malformedStatus();
    if (lf == from || b.get(lf - 1) != Ascii.CR) {
      return new Refusal(malformed, "a line that ends in LF without CR");
    }
    int to = lf - 1; // the CR
    if (index == 0) {
      for (int i = from; i < to; i++) {
        if (b.get(i) == Ascii.CR) {
          return new Refusal(malformed, "a bare CR in the start line");
        }
      }
      return syntax.checkStartLine(b, from, to);
    }
    byte first = b.get(from);
    if (Ascii.whitespace(first)) {
      return new Refusal(
          malformed,
          index == 1
              ? "whitespace before the first header field"
              : "a folded header line (obs-fold)");
    }
    int colon = from;
    while (colon < to && b.get(colon) != ':') {
      byte c = b.get(colon);
      if (c == Ascii.CR) {
        return new Refusal(malformed, "a bare CR in a header field name");
      }
      if (Ascii.whitespace(c)) {
        return new Refusal(
            malformed,
            "whitespace before the colon of header field '" + Ascii.text(b, from, colon) + "'");
      }
      if (!Ascii.tchar(c)) {
        return new Refusal(
            malformed, "an invalid character " + Ascii.show(c) + " in a header field name");
      }
      colon++;
    }
    if (colon == to) {
      return new Refusal(malformed, "a header line without a colon");
    }
    if (colon == from) {
      return new Refusal(malformed, "a header field with an empty name");
    }
    for (int i = colon + 1; i < to; i++) {
      byte c = b.get(i);
      if (Ascii.fieldVchar(c) || Ascii.whitespace(c)) {
        continue;
      }
      String name = Ascii.text(b, from, colon);
      if (c == Ascii.CR) {
        return new Refusal(malformed, "a bare CR in the value of header field '" + name + "'");
      }
      if (c == 0) {
        return new Refusal(malformed, "a NUL in the value of header field '" + name + "'");
      }
      return new Refusal(
          malformed,
          "a control character " + Ascii.show(c) + " in the value of header field '" + name + "'");
    }
    return null;
  }

  private HeadResult<H> refuse(int status, String reason) {
    return refused(new Refusal(status, reason));
  }

  private HeadResult<H> refused(Refusal refusal) {
    partial = null;
    checked = 0;
    lines = 0;
    return new HeadResult.Refused<>(refusal);
  }
}
