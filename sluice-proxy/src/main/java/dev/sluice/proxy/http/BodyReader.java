package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/**
 * Follows one body as it streams through, telling the relay how many of the next bytes are the
 * body's so it forwards them as they come and never holds the body. It keeps a few counters, no
 * bytes: a chunked body is checked byte by byte as it passes.
 */
public sealed interface BodyReader permits BodyReader.Counted, BodyReader.ToClose, ChunkedReader {

  /**
   * How many of the bytes between {@code bytes}' position and limit belong to this body, counted
   * from the position (which is not moved); the bytes after them follow the body. After a framing
   * error the count stops before the faulty byte (a chunked body's: before the line that holds it,
   * when that line began in these bytes) and {@link #refusal()} says why.
   */
  int scan(ByteBuffer bytes);

  /** Whether the body's last byte has been counted. */
  boolean finished();

  /** Why the body's framing broke, or null. */
  Refusal refusal();

  /**
   * The sender ended its output: whether the body is complete (a body that ends at close is, any
   * other is cut short unless already finished).
   */
  boolean endOfInput();

  /** A body of a known length (zero for none). */
  final class Counted implements BodyReader {
    private long left;

    Counted(long length) {
      this.left = length;
    }

    @Override
    public int scan(ByteBuffer bytes) {
      int n = (int) Math.min(left, bytes.remaining());
      left -= n;
      return n;
    }

    @Override
    public boolean finished() {
      return left == 0;
    }

    @Override
    public Refusal refusal() {
      return null;
    }

    @Override
    public boolean endOfInput() {
      return left == 0;
    }

    /** Bytes still to come. */
    public long left() {
      return left;
    }
  }

  /** A response body that ends when the upstream closes. */
  final class ToClose implements BodyReader {
    private boolean closed;

    ToClose() {}

    @Override
    public int scan(ByteBuffer bytes) {
      return closed ? 0 : bytes.remaining();
    }

    @Override
    public boolean finished() {
      return closed;
    }

    @Override
    public Refusal refusal() {
      return null;
    }

    @Override
    public boolean endOfInput() {
      closed = true;
      return true;
    }
  }
}
