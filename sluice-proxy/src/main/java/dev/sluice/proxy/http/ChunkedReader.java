package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * Follows a chunked body (RFC 9112 §7.1) byte by byte as it passes: chunk sizes, extensions, data,
 * the last chunk, trailer fields and the final empty line, forwarded as they are. It is strict
 * where a lenient reader and a strict one would disagree on where the body ends, the ground of
 * chunk-based smuggling: a size is hex digits only (no sign, no {@code 0x}, no whitespace unless an
 * extension follows) and must fit in 63 bits; every line ends in CRLF (no bare LF, no bare CR, also
 * inside extensions); chunk data is followed by CRLF exactly; trailer lines obey the rules of
 * header fields (no obs-fold, no whitespace before the colon, no control characters). A chunk line
 * is at most {@link #MAX_CHUNK_LINE} bytes, the trailers at most the bound given.
 *
 * <p>A refused line is not counted as body, so none of it is forwarded (a lenient upstream could
 * take the {@code 0} of {@code 0x5} for a last chunk); only the part of it that came in an earlier
 * read was counted then, since no bytes are held.
 */
public final class ChunkedReader implements BodyReader {
  /** The longest chunk-size line with its extensions, CRLF included. */
  public static final int MAX_CHUNK_LINE = 4096;

  private enum State {
    SIZE_FIRST,
    SIZE,
    WS_BEFORE_SEMI,
    EXT_NAME_START,
    EXT_NAME,
    WS_AFTER_NAME,
    EXT_VALUE_START,
    EXT_TOKEN,
    QUOTED,
    QUOTED_PAIR,
    AFTER_QUOTE,
    LINE_LF,
    DATA,
    DATA_CR,
    DATA_LF,
    TRAILER_START,
    TRAILER_NAME,
    TRAILER_VALUE,
    TRAILER_LF,
    END_LF,
    DONE,
    FAILED
  }

  private final int refusalStatus;
  private final int maxTrailerBytes;
  private State state = State.SIZE_FIRST;
  private long size;
  private long left;
  private int lineBytes;
  private int trailerBytes;
  private Refusal refusal;

  ChunkedReader(int refusalStatus, int maxTrailerBytes) {
    this.refusalStatus = refusalStatus;
    this.maxTrailerBytes = maxTrailerBytes;
  }

  @Override
  public int scan(ByteBuffer bytes) {
    int from = bytes.position();
    int limit = bytes.limit();
    int i = from;
    int lineStart = from; // where the line under way began in these bytes (from: before them)
    while (i < limit && state != State.DONE && state != State.FAILED) {
      if (state == State.DATA) {
        int take = (int) Math.min(left, limit - i);
        i += take;
        left -= take;
        if (left == 0) {
          state = State.DATA_CR;
        }
        continue;
      }
      if (state == State.SIZE_FIRST || state == State.TRAILER_START || state == State.DATA_CR) {
        lineStart = i;
      }
      if (!step(bytes.get(i))) {
        return lineStart - from; // none of a refused line goes on: not even its valid prefix
      }
      i++;
    }
    return i - from;
  }

  /** One byte outside chunk data; false (and a refusal) if it breaks the framing. */
  private boolean step(byte b) {
    if (state.ordinal() < State.DATA.ordinal() && ++lineBytes > MAX_CHUNK_LINE) {
      return fail("a chunk-size line longer than " + MAX_CHUNK_LINE + " bytes");
    }
    if (state.ordinal() >= State.TRAILER_START.ordinal()
        && state != State.END_LF
        && ++trailerBytes > maxTrailerBytes) {
      return fail("trailers longer than " + maxTrailerBytes + " bytes");
    }
    switch (state) {
      case SIZE_FIRST, SIZE -> {
        int digit = Character.digit(b, 16);
        if (digit >= 0) {
          if ((size >>> 59) != 0) {
            return fail("a chunk size that overflows 63 bits");
          }
          size = size << 4 | digit;
          state = State.SIZE;
        } else if (state == State.SIZE_FIRST) {
          return fail("a chunk size that does not start with a hex digit: " + Ascii.show(b));
        } else if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (Ascii.whitespace(b)) {
          state = State.WS_BEFORE_SEMI;
        } else if (b == Ascii.CR) {
          state = State.LINE_LF;
        } else {
          return fail("an invalid character " + Ascii.show(b) + " in a chunk size");
        }
      }
      case WS_BEFORE_SEMI -> {
        if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (!Ascii.whitespace(b)) {
          return fail("whitespace in a chunk line not followed by an extension");
        }
      }
      case EXT_NAME_START -> {
        if (Ascii.tchar(b)) {
          state = State.EXT_NAME;
        } else if (!Ascii.whitespace(b)) {
          return fail("a chunk extension without a name");
        }
      }
      case EXT_NAME -> {
        if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (b == '=') {
          state = State.EXT_VALUE_START;
        } else if (Ascii.whitespace(b)) {
          state = State.WS_AFTER_NAME;
        } else if (b == Ascii.CR) {
          state = State.LINE_LF;
        } else if (!Ascii.tchar(b)) {
          return fail("an invalid character " + Ascii.show(b) + " in a chunk extension");
        }
      }
      case WS_AFTER_NAME -> {
        if (b == '=') {
          state = State.EXT_VALUE_START;
        } else if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (!Ascii.whitespace(b)) {
          return fail("whitespace in a chunk extension not followed by '=' or ';'");
        }
      }
      case EXT_VALUE_START -> {
        if (b == '"') {
          state = State.QUOTED;
        } else if (Ascii.tchar(b)) {
          state = State.EXT_TOKEN;
        } else if (!Ascii.whitespace(b)) {
          return fail("a chunk extension without a value after '='");
        }
      }
      case EXT_TOKEN -> {
        if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (Ascii.whitespace(b)) {
          state = State.WS_BEFORE_SEMI;
        } else if (b == Ascii.CR) {
          state = State.LINE_LF;
        } else if (!Ascii.tchar(b)) {
          return fail("an invalid character " + Ascii.show(b) + " in a chunk extension value");
        }
      }
      case QUOTED -> {
        if (b == '"') {
          state = State.AFTER_QUOTE;
        } else if (b == '\\') {
          state = State.QUOTED_PAIR;
        } else if (!qdtext(b)) {
          return fail("an invalid character " + Ascii.show(b) + " in a quoted chunk extension");
        }
      }
      case QUOTED_PAIR -> {
        if (!Ascii.fieldVchar(b) && !Ascii.whitespace(b)) {
          return fail("an invalid escaped character " + Ascii.show(b) + " in a chunk extension");
        }
        state = State.QUOTED;
      }
      case AFTER_QUOTE -> {
        if (b == ';') {
          state = State.EXT_NAME_START;
        } else if (Ascii.whitespace(b)) {
          state = State.WS_BEFORE_SEMI;
        } else if (b == Ascii.CR) {
          state = State.LINE_LF;
        } else {
          return fail("an invalid character " + Ascii.show(b) + " after a quoted chunk extension");
        }
      }
      case LINE_LF -> {
        if (b != Ascii.LF) {
          return fail("a bare CR in a chunk line");
        }
        lineBytes = 0;
        if (size == 0) {
          state = State.TRAILER_START;
        } else {
          left = size;
          size = 0;
          state = State.DATA;
        }
      }
      case DATA_CR -> {
        if (b != Ascii.CR) {
          return fail("chunk data not followed by CRLF (" + Ascii.show(b) + " after it)");
        }
        state = State.DATA_LF;
      }
      case DATA_LF -> {
        if (b != Ascii.LF) {
          return fail("a bare CR after chunk data");
        }
        state = State.SIZE_FIRST;
      }
      case TRAILER_START -> {
        if (b == Ascii.CR) {
          state = State.END_LF;
        } else if (Ascii.whitespace(b)) {
          return fail("a trailer line that begins with whitespace (obs-fold)");
        } else if (Ascii.tchar(b)) {
          state = State.TRAILER_NAME;
        } else {
          return fail("an invalid character " + Ascii.show(b) + " in a trailer field name");
        }
      }
      case TRAILER_NAME -> {
        if (b == ':') {
          state = State.TRAILER_VALUE;
        } else if (Ascii.whitespace(b)) {
          return fail("whitespace before the colon of a trailer field");
        } else if (!Ascii.tchar(b)) {
          return fail("an invalid character " + Ascii.show(b) + " in a trailer field name");
        }
      }
      case TRAILER_VALUE -> {
        if (b == Ascii.CR) {
          state = State.TRAILER_LF;
        } else if (!Ascii.fieldVchar(b) && !Ascii.whitespace(b)) {
          return fail("a control character " + Ascii.show(b) + " in a trailer field value");
        }
      }
      case TRAILER_LF -> {
        if (b != Ascii.LF) {
          return fail("a bare CR in a trailer field");
        }
        state = State.TRAILER_START;
      }
      case END_LF -> {
        if (b != Ascii.LF) {
          return fail("a bare CR at the end of a chunked body");
        }
        state = State.DONE;
      }
      case DATA, DONE, FAILED -> throw new IllegalStateException(state.name());
    }
    return true;
  }

  private static boolean qdtext(byte b) {
    int c = b & 0xff;
    return c == Ascii.HTAB
        || c == Ascii.SP
        || c == 0x21
        || (c >= 0x23 && c <= 0x7e && c != '\\')
        || c >= 0x80;
  }

  private boolean fail(String reason) {
    state = State.FAILED;
    refusal = new Refusal(refusalStatus, reason);
    return false;
  }

  @Override
  public boolean finished() {
    return state == State.DONE;
  }

  @Override
  public Refusal refusal() {
    return refusal;
  }

  @Override
  public boolean endOfInput() {
    return state == State.DONE;
  }
}
