package dev.sluice.net;

/** What a {@link Detector} decided about a connection from its first bytes. */
public sealed interface Detection {

  /** No decision yet: read more. */
  Detection NEED_MORE = new NeedMore();

  /** Read more before deciding. */
  record NeedMore() implements Detection {}

  /**
   * Hand the connection to {@code next} with every byte read so far but the first {@code consumed}:
   * a detector that read a header of its own (a PROXY protocol header) keeps it, and the next
   * handler sees what followed it.
   */
  record HandOver(ConnectionHandler next, int consumed) implements Detection {
    public HandOver {
      if (consumed < 0) {
        throw new IllegalArgumentException("consumed must not be negative: " + consumed);
      }
    }

    /** Hands over every byte read so far. */
    public HandOver(ConnectionHandler next) {
      this(next, 0);
    }
  }

  /** Close the connection with {@code reason}; nothing else sees it. */
  record Reject(CloseReason reason) implements Detection {}

  /** Hands the connection to {@code next}. */
  static Detection handOver(ConnectionHandler next) {
    return new HandOver(next);
  }

  /**
   * Hands the connection to {@code next} without the first {@code consumed} bytes, which the
   * detector has read for itself.
   */
  static Detection handOver(ConnectionHandler next, int consumed) {
    return new HandOver(next, consumed);
  }

  /** Refuses the connection with a {@link CloseReason.Rejected} of this label and detail. */
  static Detection reject(String label, String detail) {
    return new Reject(new CloseReason.Rejected(label, detail));
  }
}
