package dev.sluice.net;

/** What a {@link Detector} decided about a connection from its first bytes. */
public sealed interface Detection {

  /** No decision yet: read more. */
  Detection NEED_MORE = new NeedMore();

  /** Read more before deciding. */
  record NeedMore() implements Detection {}

  /** Hand the connection, and every byte read so far, to {@code next}. */
  record HandOver(ConnectionHandler next) implements Detection {}

  /** Close the connection with {@code reason}; nothing else sees it. */
  record Reject(CloseReason reason) implements Detection {}

  /** Hands the connection to {@code next}. */
  static Detection handOver(ConnectionHandler next) {
    return new HandOver(next);
  }

  /** Refuses the connection with a {@link CloseReason.Rejected} of this label and detail. */
  static Detection reject(String label, String detail) {
    return new Reject(new CloseReason.Rejected(label, detail));
  }
}
