package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.testing.Await;
import dev.sluice.testing.EmbeddedConnection;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A first stage reads until its detector decides, then hands every byte read so far, in order, to
 * the next handler, or refuses the connection; in size and time it is bounded.
 */
class DetectingHandlerTest {

  /**
   * Decides once it has seen a newline: "tls..." goes to the next handler, anything else is
   * refused.
   */
  private static final class LineDetector implements Detector {
    final ConnectionHandler next;
    int calls;

    LineDetector(ConnectionHandler next) {
      this.next = next;
    }

    @Override
    public Detection detect(Connection connection, ByteBuffer prefix) {
      calls++;
      String text = StandardCharsets.US_ASCII.decode(prefix.duplicate()).toString();
      if (!text.contains("\n")) {
        return Detection.NEED_MORE;
      }
      return text.startsWith("tls")
          ? Detection.handOver(next)
          : Detection.reject("unknown_protocol", "not tls: " + text.strip());
    }
  }

  /** Records what the next stage is given. */
  private static final class Next implements ConnectionHandler {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Integer> reads = new ArrayList<>();
    int activations;
    boolean endOfInput;

    @Override
    public void onActive(Connection connection) {
      activations++;
    }

    @Override
    public void onRead(Connection connection, BorrowedBytes read) {
      reads.add(read.length());
      byte[] copy = read.copy().bytes();
      bytes.writeBytes(copy);
    }

    @Override
    public void onEndOfInput(Connection connection) {
      endOfInput = true;
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void aDecisionOnTheFirstReadHandsThatReadOverWhole() {
    Next next = new Next();
    LineDetector detector = new LineDetector(next);
    try (EmbeddedConnection c =
        EmbeddedConnection.open(new DetectingHandler(detector, 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("tls hello\nrest"));
      c.feed(ascii(" and more"));
      assertThat(next.activations).isEqualTo(1);
      assertThat(next.reads).containsExactly(14, 9);
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII))
          .isEqualTo("tls hello\nrest and more");
      assertThat(detector.calls).as("the detector is done after its decision").isEqualTo(1);
      assertThat(c.isOpen()).isTrue();
    }
  }

  @Test
  void bytesSplitAcrossReadsArriveInOrderInOneReplay() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(new LineDetector(next), 64, Duration.ofSeconds(10)))) {
      c.run(() -> c.setMaxReadBytes(1));
      c.feed(ascii("tls\n"));
      c.run(() -> c.setMaxReadBytes(Integer.MAX_VALUE));
      c.feed(ascii("after"));
      assertThat(next.reads).containsExactly(4, 5);
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("tls\nafter");
    }
  }

  @Test
  void aRejectionClosesWithItsReasonAndNobodyElseSeesTheBytes() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(new LineDetector(next), 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("ssh-2.0\n"));
      assertThat(c.closeReason())
          .isEqualTo(new CloseReason.Rejected("unknown_protocol", "not tls: ssh-2.0"));
      assertThat(next.activations).isZero();
    }
  }

  @Test
  void noDecisionWithinTheLimitIsRefused() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(new LineDetector(next), 16, Duration.ofSeconds(10)))) {
      c.feed(ascii("tls but no newline in sight"));
      assertThat(c.closeReason()).isInstanceOf(CloseReason.Rejected.class);
      assertThat(((CloseReason.Rejected) c.closeReason()).label()).isEqualTo("detect_limit");
      assertThat(next.activations).isZero();
    }
  }

  @Test
  void noDecisionInTimeIsRefused() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(new LineDetector(next), 64, Duration.ofMillis(50)))) {
      c.feed(ascii("tl"));
      Await.until(() -> !c.isOpen(), () -> "the detection timeout");
      assertThat(((CloseReason.Rejected) c.closeReason()).label()).isEqualTo("detect_timeout");
    }
  }

  @Test
  void anEndOfInputBeforeADecisionIsRefusedByDefault() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(new LineDetector(next), 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("tl"));
      c.feedEndOfInput();
      assertThat(((CloseReason.Rejected) c.closeReason()).label()).isEqualTo("detect_eof");
    }
  }

  @Test
  void aHandOverAtEndOfInputReplaysTheBytesThenTheEnd() {
    Next next = new Next();
    Detector eofGoesOn =
        new Detector() {
          @Override
          public Detection detect(Connection connection, ByteBuffer prefix) {
            return Detection.NEED_MORE;
          }

          @Override
          public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
            return Detection.handOver(next);
          }
        };
    try (EmbeddedConnection c =
        EmbeddedConnection.open(new DetectingHandler(eofGoesOn, 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("short"));
      c.feedEndOfInput();
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("short");
      assertThat(next.endOfInput).isTrue();
    }
  }

  /** Reads a header line for itself: the next stage sees only what follows the newline. */
  private static Detector headerLine(ConnectionHandler next, List<String> headers) {
    return (connection, prefix) -> {
      for (int i = prefix.position(); i < prefix.limit(); i++) {
        if (prefix.get(i) == '\n') {
          byte[] header = new byte[i + 1 - prefix.position()];
          prefix.get(prefix.position(), header);
          headers.add(new String(header, StandardCharsets.US_ASCII));
          return Detection.handOver(next, header.length);
        }
      }
      return Detection.NEED_MORE;
    };
  }

  @Test
  void aDetectorThatKeepsItsHeaderPassesOnOnlyTheRestOfThatRead() {
    Next next = new Next();
    List<String> headers = new ArrayList<>();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(headerLine(next, headers), 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("HEADER 1\npayload"));
      c.feed(ascii(" and more"));
      assertThat(headers).containsExactly("HEADER 1\n");
      assertThat(next.activations).isEqualTo(1);
      assertThat(next.reads).containsExactly(7, 9);
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("payload and more");
    }
  }

  @Test
  void aHeaderCutAtEveryByteLeavesExactlyWhatFollowsIt() {
    String header = "HEADER 1\n";
    String all = header + "payload";
    for (int cut = 1; cut < all.length(); cut++) {
      Next next = new Next();
      List<String> headers = new ArrayList<>();
      try (EmbeddedConnection c =
          EmbeddedConnection.open(
              new DetectingHandler(headerLine(next, headers), 64, Duration.ofSeconds(10)))) {
        c.feed(ascii(all.substring(0, cut)));
        c.feed(ascii(all.substring(cut)));
        assertThat(headers).as("cut at %d", cut).containsExactly(header);
        assertThat(next.bytes.toString(StandardCharsets.US_ASCII))
            .as("cut at %d", cut)
            .isEqualTo("payload");
        assertThat(next.reads).as("cut at %d: no empty read", cut).doesNotContain(0);
      }
    }
  }

  @Test
  void aHeaderThatIsTheWholeReadPassesNothingOnUntilTheNextRead() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                headerLine(next, new ArrayList<>()), 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("HEADER\n"));
      assertThat(next.activations).isEqualTo(1);
      assertThat(next.reads).isEmpty();
      c.feed(ascii("x"));
      assertThat(next.reads).containsExactly(1);
    }
  }

  @Test
  void aHeaderKeptAtEndOfInputReplaysOnlyWhatFollowsItThenTheEnd() {
    Next next = new Next();
    Detector atEnd =
        new Detector() {
          @Override
          public Detection detect(Connection connection, ByteBuffer prefix) {
            return Detection.NEED_MORE;
          }

          @Override
          public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
            return Detection.handOver(next, 3);
          }
        };
    try (EmbeddedConnection c =
        EmbeddedConnection.open(new DetectingHandler(atEnd, 64, Duration.ofSeconds(10)))) {
      c.feed(ascii("HD:rest"));
      c.feedEndOfInput();
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("rest");
      assertThat(next.endOfInput).isTrue();
    }
  }

  @Test
  void aDetectorThatClaimsMoreBytesThanWereReadClosesWithAnError() {
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                (connection, prefix) -> Detection.handOver(next, prefix.remaining() + 1),
                64,
                Duration.ofSeconds(10)))) {
      c.feed(ascii("abc"));
      assertThat(c.closeReason()).isInstanceOf(CloseReason.Error.class);
      assertThat(((CloseReason.Error) c.closeReason()).cause())
          .hasMessageContaining("consumed 4 B of the 3 B read");
      assertThat(next.activations).isZero();
    }
  }

  @Test
  void aDetectorThatThrowsClosesThatConnectionWithTheError() {
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                (connection, prefix) -> {
                  throw new IllegalStateException("broken detector");
                },
                64,
                Duration.ofSeconds(10)))) {
      c.feed(ascii("x"));
      assertThat(c.closeReason()).isInstanceOf(CloseReason.Error.class);
    }
  }

  /** What a first stage has charged and not released, and whether anything went wrong. */
  private static final class Account implements ByteAccount {
    long held;
    long peak;
    boolean overReleased;

    @Override
    public void charge(long bytes) {
      held += bytes;
      peak = Math.max(peak, held);
    }

    @Override
    public void release(long bytes) {
      held -= bytes;
      overReleased |= held < 0;
    }
  }

  /** Hands over once {@code total} bytes have come; asks for more until then. */
  private static Detector handOverAt(int total, ConnectionHandler next, List<Integer> seen) {
    return (connection, prefix) -> {
      seen.add(prefix.remaining());
      return prefix.remaining() >= total ? Detection.handOver(next) : Detection.NEED_MORE;
    };
  }

  @Test
  void aLargePrefixTrickledInIsCopiedLinearlyNotWholeOnEveryRead() {
    int total = 900 * 1024;
    int segment = 64;
    byte[] input = new byte[total];
    new java.util.Random(16).nextBytes(input);
    Next next = new Next();
    List<Integer> seen = new ArrayList<>();
    Account account = new Account();
    DetectingHandler handler =
        new DetectingHandler(
            handOverAt(total, next, seen), total + 1, Duration.ofSeconds(30), account);
    try (EmbeddedConnection c = EmbeddedConnection.open(handler)) {
      c.run(() -> c.setMaxReadBytes(segment));
      c.feed(input);
      int reads = total / segment;
      assertThat(seen).hasSize(reads).endsWith(total);
      assertThat(seen.get(reads / 2 - 1))
          .as("each call sees every byte so far")
          .isEqualTo(total / 2);
      // Kept whole on every read, 900 KiB in 64 B pieces would copy 6.3 GB; doubling copies each
      // byte once on arrival and less than once more on average as the buffer grows.
      assertThat(handler.copiedBytes()).isLessThan(3L * total);
      assertThat(next.bytes.toByteArray()).isEqualTo(input);
      assertThat(account.peak).as("the held bytes were charged").isGreaterThanOrEqualTo(total);
      assertThat(account.held).as("and released once handed on").isZero();
      assertThat(account.overReleased).isFalse();
    }
  }

  @Test
  void heldBytesAreChargedUntilHandedOnOrTheConnectionEnds() {
    List<Integer> seen = new ArrayList<>();
    // Handed on.
    Account handedOn = new Account();
    Next next = new Next();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                handOverAt(10, next, seen), 64, Duration.ofSeconds(10), handedOn))) {
      c.feed(ascii("12345"));
      assertThat(handedOn.held).isEqualTo(5);
      c.feed(ascii("678"));
      assertThat(handedOn.held).as("the buffer doubled").isEqualTo(10);
      c.feed(ascii("90"));
      assertThat(handedOn.held).isZero();
      assertThat(next.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("1234567890");
    }
    // Refused: by the detector, at the limit, at the end of input, in time; or closed under it.
    Account refused = new Account();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                new LineDetector(new Next()), 64, Duration.ofSeconds(10), refused))) {
      c.feed(ascii("ssh"));
      assertThat(refused.held).isEqualTo(3);
      c.feed(ascii("-2.0\n"));
      assertThat(c.isOpen()).isFalse();
    }
    Account atLimit = new Account();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                new LineDetector(new Next()), 16, Duration.ofSeconds(10), atLimit))) {
      c.run(() -> c.setMaxReadBytes(5));
      c.feed(ascii("tls but no newline in sight"));
      assertThat(c.isOpen()).isFalse();
    }
    Account atEnd = new Account();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                new LineDetector(new Next()), 64, Duration.ofSeconds(10), atEnd))) {
      c.feed(ascii("tl"));
      c.feedEndOfInput();
      assertThat(c.isOpen()).isFalse();
    }
    Account inTime = new Account();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                new LineDetector(new Next()), 64, Duration.ofMillis(50), inTime))) {
      c.feed(ascii("tl"));
      Await.until(() -> !c.isOpen(), () -> "the detection timeout");
    }
    Account closed = new Account();
    try (EmbeddedConnection c =
        EmbeddedConnection.open(
            new DetectingHandler(
                new LineDetector(new Next()), 64, Duration.ofSeconds(10), closed))) {
      c.feed(ascii("tl"));
      assertThat(closed.held).isEqualTo(2);
    } // closed with reason shutdown while the bytes are held
    for (Account account : List.of(refused, atLimit, atEnd, inTime, closed)) {
      assertThat(account.peak).as("charged").isPositive();
      assertThat(account.held).as("released").isZero();
      assertThat(account.overReleased).isFalse();
    }
  }
}
