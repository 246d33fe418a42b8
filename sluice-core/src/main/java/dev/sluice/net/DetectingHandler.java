package dev.sluice.net;

import dev.sluice.memory.BorrowedBytes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;

/**
 * The first stage of a connection: reads until its {@link Detector} decides, then hands the
 * connection over ({@link Connection#switchHandler}) and replays every byte read so far to the next
 * handler as a read of its own, or refuses it. The usual case, a decision on the first read,
 * replays that read without a copy; bytes that arrive split are kept until the decision, at most
 * {@code maxBytes} of them (and the read that crossed it), for at most {@code timeout}, in a buffer
 * that doubles as they come (so a prefix trickled in costs copying linear in its size, never a copy
 * of everything held per read), charged to a {@link ByteAccount} until they are handed on or the
 * connection ends. A detector may keep a header of its own ({@link Detection#handOver(
 * ConnectionHandler, int)}): the next handler then sees only the bytes after it, the rest of that
 * same read included.
 */
public final class DetectingHandler implements ConnectionHandler {
  private final Detector detector;
  private final int maxBytes;
  private final Duration timeout;
  private final HeldPrefix held;
  private EventLoop.Timeout timer;
  private boolean decided;

  /**
   * @param detector decides from the first bytes
   * @param maxBytes the most bytes kept before {@link Detector#onLimit}
   * @param timeout how long to wait for a decision before {@link Detector#onTimeout}; {@link
   *     Timeouts#NONE} for no limit
   */
  public DetectingHandler(Detector detector, int maxBytes, Duration timeout) {
    this(detector, maxBytes, timeout, ByteAccount.NONE);
  }

  /**
   * @param detector decides from the first bytes
   * @param maxBytes the most bytes kept before {@link Detector#onLimit}
   * @param timeout how long to wait for a decision before {@link Detector#onTimeout}; {@link
   *     Timeouts#NONE} for no limit
   * @param account charged with the bytes kept until the decision, released when they are handed on
   *     or the connection ends
   */
  public DetectingHandler(Detector detector, int maxBytes, Duration timeout, ByteAccount account) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1, not " + maxBytes);
    }
    this.detector = detector;
    this.maxBytes = maxBytes;
    this.timeout = Timeouts.check("timeout", timeout);
    this.held = new HeldPrefix(maxBytes, Objects.requireNonNull(account, "account"));
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
    boolean first = held.isEmpty();
    if (!first) {
      held.append(bytes.buffer());
    }
    ByteBuffer prefix = first ? bytes.buffer() : held.view();
    Detection detection = detector.detect(connection, prefix.asReadOnlyBuffer());
    if (detection instanceof Detection.NeedMore) {
      if (prefix.remaining() >= maxBytes) {
        detection = detector.onLimit(connection, prefix.asReadOnlyBuffer());
      } else {
        if (first) {
          held.append(prefix);
        }
        return;
      }
    }
    if (first) {
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
    held.release();
    detector.onClosed(connection, reason);
  }

  /** Bytes copied into the held prefix so far (tests: linear in the bytes held). */
  long copiedBytes() {
    return held.copiedBytes();
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
    try {
      act(connection, detection, current, replay);
    } finally {
      held.release(); // handed on, or refused: nothing is held any more
    }
  }

  private static void act(
      Connection connection, Detection detection, BorrowedBytes current, ByteBuffer replay) {
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

  private ByteBuffer held() {
    return held.isEmpty() ? null : held.view();
  }

  private ByteBuffer heldView() {
    return held.view().asReadOnlyBuffer();
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }
}
