package dev.sluice.proxy.forward;

/**
 * Where a pair is in its life. It only moves forward: OPENING -> CONNECTING (again for each retry)
 * -> FORWARDING -> CLOSING -> CLOSED; any state before CLOSED may go to CLOSING (a close, a leg
 * that closed) or straight to CLOSED (a client refused before its leg was active).
 */
enum PairState {
  /**
   * The client's leg is not active yet (a first stage: PROXY header, ClientHello, TLS), or its
   * relay has not asked for an upstream yet (an HTTP relay reading the first head).
   */
  OPENING,
  /** A connect to an upstream is under way; the client's bytes wait (in its socket or held). */
  CONNECTING,
  /** Both legs are up and the relay moves bytes between them. */
  FORWARDING,
  /** One leg closed or the pair was told to close: the other is ending. */
  CLOSING,
  /** Both legs are done, the budget is given back and the owner has heard: for good. */
  CLOSED;

  /** Under way: not closing or closed. */
  boolean isOpen() {
    return compareTo(CLOSING) < 0;
  }

  /** The name dumps print. */
  String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
