package dev.sluice.proxy.http;

/**
 * How a message's body is delimited (RFC 9112 §6.3). The relay makes a {@link BodyReader} of it for
 * each body, which tells it how many of the next bytes are the body's.
 */
public sealed interface BodyFraming {
  /** No body: the next bytes begin the next message. */
  record None() implements BodyFraming {}

  /** Exactly {@code length} bytes. */
  record Length(long length) implements BodyFraming {
    public Length {
      if (length < 0) {
        throw new IllegalArgumentException("negative length " + length);
      }
    }
  }

  /** Chunked transfer coding, last: chunks, a last chunk, trailers, an empty line. */
  record Chunked() implements BodyFraming {}

  /** A response that ends when the upstream closes (no length, not chunked). */
  record UntilClose() implements BodyFraming {}

  BodyFraming NONE = new None();
  BodyFraming CHUNKED = new Chunked();
  BodyFraming UNTIL_CLOSE = new UntilClose();

  /**
   * A reader for one body framed so; {@code refusalStatus} is what a framing error answers (400 for
   * a request's body, 502 for a response's) and {@code maxTrailerBytes} bounds a chunked body's
   * trailer section (refused beyond, like any other framing error).
   */
  default BodyReader reader(int refusalStatus, int maxTrailerBytes) {
    return switch (this) {
      case None _ -> new BodyReader.Counted(0);
      case Length l -> new BodyReader.Counted(l.length());
      case Chunked _ -> new ChunkedReader(refusalStatus, maxTrailerBytes);
      case UntilClose _ -> new BodyReader.ToClose();
    };
  }
}
