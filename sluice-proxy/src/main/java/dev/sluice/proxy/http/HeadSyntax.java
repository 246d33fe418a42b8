package dev.sluice.proxy.http;

import java.nio.ByteBuffer;

/** What a {@link HeadReader} reads: a request head or a response head. */
interface HeadSyntax<H> {

  /** Whether empty lines before the start line are skipped (RFC 9112 §2.2, requests). */
  boolean skipsLeadingEmptyLines();

  /** The longest start line, CRLF excluded. */
  int maxStartLine();

  /** What a start line longer than {@link #maxStartLine()} answers (414 for a request). */
  int startLineTooLongStatus();

  /** What a head longer than the bound answers (431 for a request). */
  int headTooLongStatus();

  /** What a malformed head answers (400 for a request, 502 for a response). */
  int malformedStatus();

  /**
   * Checks the start line {@code [from, to)} (CRLF excluded, free of CR and LF): a refusal, or null
   * if it is well formed.
   */
  Refusal checkStartLine(ByteBuffer b, int from, int to);

  /**
   * The head of the validated start line {@code [from, startEnd)} (CRLF excluded) and {@code
   * fields}, which ends at {@code end}; or a refusal of what the fields say together (framing,
   * Host).
   */
  HeadResult<H> build(ByteBuffer b, int from, int startEnd, Fields fields, int end, int consumed);
}
