package dev.sluice.net;

import java.nio.ByteBuffer;

/**
 * Decides, from the first bytes a connection sends, who handles it: a TLS port telling a
 * ClientHello from a plaintext HTTP request, a proxy reading the server name of a ClientHello it
 * forwards untouched. Used by a {@link DetectingHandler}, which keeps the bytes until a decision
 * and bounds them in size and time. Runs on the connection's loop.
 */
@FunctionalInterface
public interface Detector {

  /**
   * Looks at every byte read so far ({@code prefix}, read-only, position 0): a decision, or {@link
   * Detection#NEED_MORE}.
   */
  Detection detect(Connection connection, ByteBuffer prefix);

  /** No decision within the time allowed; the default refuses the connection. */
  default Detection onTimeout(Connection connection, ByteBuffer prefix) {
    return Detection.reject(
        "detect_timeout", "no decision after " + prefix.remaining() + " B within the time allowed");
  }

  /** The peer ended its output before a decision; the default refuses the connection. */
  default Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
    return Detection.reject(
        "detect_eof", "the peer closed after " + prefix.remaining() + " B, before a decision");
  }

  /**
   * The connection closed while the detector still had it: before a decision (the peer reset it,
   * the loop shut down) or after a rejection. The last the detector hears of it; the default does
   * nothing.
   */
  default void onClosed(Connection connection, CloseReason reason) {}

  /** No decision within the most bytes allowed; the default refuses the connection. */
  default Detection onLimit(Connection connection, ByteBuffer prefix) {
    return Detection.reject(
        "detect_limit", "no decision within " + prefix.remaining() + " B, the most allowed");
  }
}
