package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The first stage of a connection: reads until its {@link Detector} decides, then hands the
 * connection over ({@link Connection#switchHandler}) and replays every byte read so far to the next
 * handler as a read of its own, or refuses it. The usual case, a decision on the first read,
 * replays that read without a copy; bytes that arrive split are kept at exact size until the
 * decision, at most {@code maxBytes} of them, for at most {@code timeout}. A detector may keep a
 * header of its own ({@link Detection#handOver(ConnectionHandler, int)}): the next handler then
 * sees only the bytes after it, the rest of that same read included.
 */
public final class DetectingHandler implements ConnectionHandler {
  private final Detector detector;
  private final int maxBytes;
  private final Duration timeout;
  private byte[] held;
  private EventLoop.Timeout timer;
  private boolean decided;

  /**
   * @param detector decides from the first bytes
   * @param maxBytes the most bytes kept before {@link Detector#onLimit}
   * @param timeout how long to wait for a decision before {@link Detector#onTimeout}; {@link
   *     Timeouts#NONE} for no limit
   */
  public DetectingHandler(Detector detector, int maxBytes, Duration timeout) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1, not " + maxBytes);
    }
    this.detector = detector;
    this.maxBytes = maxBytes;
    this.timeout = Timeouts.check("timeout", timeout);
  }

  @Override
  public void onActive(Connection connection) {
    if (!timeout.isZero()) {
      timer =
          connection
              .loop()
              .schedule(
                  timeout,
                  () -> {
                    if (!decided && connection.isOpen()) {
                      decide(connection, detector.onTimeout(connection, heldView()), null, held());
                    }
                  });
    }
  }

  @Override
  public void onRead(Connection connection, BorrowedBytes bytes) {
    ByteBuffer prefix = held == null ? bytes.buffer() : joined(bytes.buffer());
    Detection detection = detector.detect(connection, prefix.asReadOnlyBuffer());
    if (detection instanceof Detection.NeedMore) {
      if (prefix.remaining() >= maxBytes) {
        detection = detector.onLimit(connection, prefix.asReadOnlyBuffer());
      } else {
        keep(prefix);
        return;
      }
    }
    if (held == null) {
      decide(connection, detection, bytes, null); // the first read: passed on as it is
    } else {
      decide(connection, detection, null, prefix);
    }
  }

  @Override
  public void onEndOfInput(Connection connection) {
    if (decided) {
      return;
    }
    Detection detection = detector.onEndOfInput(connection, heldView());
    decide(connection, detection, null, held());
    if (detection instanceof Detection.HandOver handOver && connection.isOpen()) {
      handOver.next().onEndOfInput(connection);
    }
  }

  @Override
  public void onClose(Connection connection, CloseReason reason) {
    decided = true;
    cancelTimer();
    held = null;
    detector.onClosed(connection, reason);
  }

  /**
   * Acts on a decision: {@code current} is a read to pass on as it is, {@code replay} bytes kept
   * (at most one of them is set).
   */
  private void decide(
      Connection connection, Detection detection, BorrowedBytes current, ByteBuffer replay) {
    if (detection instanceof Detection.NeedMore) {
      detection = Detection.reject("detect_undecided", "the detector asked for more at the end");
    }
    decided = true;
    cancelTimer();
    held = null;
    switch (detection) {
      case Detection.Reject(CloseReason reason) -> connection.close(reason);
      case Detection.HandOver(ConnectionHandler next, int consumed) -> {
        ByteBuffer all = current != null ? current.buffer() : replay;
        int available = all == null ? 0 : all.remaining();
        if (consumed > available) {
          connection.close(
              new CloseReason.Error(
                  new IllegalStateException(
                      "the detector consumed " + consumed + " B of the " + available + " B read")));
          return;
        }
        connection.switchHandler(next);
        if (!connection.isOpen()) {
          return;
        }
        if (current != null && consumed == 0) {
          next.onRead(connection, current); // the first read, passed on as it is
        } else if (consumed < available) {
          // What followed the detector's own bytes, still lent: no copy.
          ByteBuffer rest = all.slice(all.position() + consumed, available - consumed);
          BorrowedBytes.lend(rest, bytes -> next.onRead(connection, bytes));
        }
      }
      case Detection.NeedMore ignored -> throw new AssertionError("handled above");
    }
  }

  private ByteBuffer joined(ByteBuffer current) {
    byte[] all = new byte[held.length + current.remaining()];
    System.arraycopy(held, 0, all, 0, held.length);
    current.get(current.position(), all, held.length, current.remaining());
    return ByteBuffer.wrap(all);
  }

  private void keep(ByteBuffer prefix) {
    if (prefix.hasArray() && prefix.array().length == prefix.remaining()) {
      held = prefix.array(); // already an exact-size copy (joined)
    } else {
      held = new byte[prefix.remaining()];
      prefix.get(prefix.position(), held);
    }
  }

  private ByteBuffer held() {
    return held == null ? null : ByteBuffer.wrap(held);
  }

  private ByteBuffer heldView() {
    return (held == null ? ByteBuffer.allocate(0) : ByteBuffer.wrap(held)).asReadOnlyBuffer();
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }
}
