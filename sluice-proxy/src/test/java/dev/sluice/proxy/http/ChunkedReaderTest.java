package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.bytes;
import static dev.sluice.proxy.http.Heads.read;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Following chunked bodies (RFC 9112 §7.1) as they stream: where each ends, whatever the cut, with
 * extensions and trailers; and every chunk line two readers could take two ways refused.
 */
class ChunkedReaderTest {
  private static final int MAX_TRAILERS = 1024;

  private static BodyReader reader() {
    return BodyFraming.CHUNKED.reader(400, MAX_TRAILERS);
  }

  /** Scans {@code body + after} in one read: the body's length, or -1 if refused. */
  private static int scanWhole(String body, String after) {
    BodyReader reader = reader();
    int n = reader.scan(read(bytes(body + after)));
    return reader.refusal() == null && reader.finished() ? n : -1;
  }

  private static Refusal refusalOf(String body) {
    BodyReader reader = reader();
    reader.scan(read(bytes(body)));
    assertThat(reader.finished()).isFalse();
    assertThat(reader.refusal()).as("refusal of %s", body).isNotNull();
    assertThat(reader.refusal().status()).isEqualTo(400);
    return reader.refusal();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0\r\n\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
        "A\r\n0123456789\r\n000\r\n\r\n",
        "a;name\r\n0123456789\r\n0\r\n\r\n",
        "5;a=b;c=\"d \\\" e\"\r\nhello\r\n0;last\r\n\r\n",
        "5 ; a = b\r\nhello\r\n0\r\n\r\n",
        "5\r\nhello\r\n0\r\nTrailer-One: x\r\nT2:\r\n\r\n",
        "1\r\n\u00ff\r\n0\r\n\r\n",
        "7FFFFFFFFFFFFFFF;x\r\n"
      })
  void wellFormedBodiesEndWhereTheyEnd(String body) {
    if (body.startsWith("7FFF")) {
      BodyReader reader = reader();
      ByteBuffer in = read(bytes(body + "abc"));
      assertThat(reader.scan(in)).isEqualTo(body.length() + 3);
      assertThat(reader.refusal()).isNull();
      assertThat(reader.finished()).isFalse();
      return;
    }
    assertThat(scanWhole(body, "GET / HTTP/1.1\r\n")).isEqualTo(body.length());
  }

  @Test
  void cutAtEveryByteTheEndIsTheSame() {
    String body = "5;ext=\"v\"\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nX: y\r\n\r\n";
    byte[] all = bytes(body + "NEXT");
    for (int cut = 0; cut <= all.length; cut++) {
      BodyReader reader = reader();
      int first = reader.scan(read(java.util.Arrays.copyOf(all, cut)));
      int second =
          reader.finished()
              ? 0
              : reader.scan(read(java.util.Arrays.copyOfRange(all, cut, all.length)));
      assertThat(reader.refusal()).isNull();
      assertThat(reader.finished()).as("cut %d", cut).isTrue();
      assertThat(first + second).as("cut %d", cut).isEqualTo(body.length());
    }
  }

  @Test
  void oneByteAtATimeHoldsNoBytes() {
    String body = "3\r\nabc\r\n0\r\n\r\n";
    BodyReader reader = reader();
    for (byte b : bytes(body)) {
      assertThat(reader.finished()).isFalse();
      assertThat(reader.scan(read(new byte[] {b}))).isEqualTo(1);
    }
    assertThat(reader.finished()).isTrue();
    assertThat(reader.scan(read(bytes("x")))).isZero();
  }

  @Test
  void aHugeChunkIsCountedWithoutBeingHeld() {
    BodyReader reader = reader();
    assertThat(reader.scan(read(bytes("100000\r\n")))).isEqualTo(8);
    ByteBuffer data = ByteBuffer.allocate(0x100000 / 4);
    for (int i = 0; i < 4; i++) {
      assertThat(reader.scan(data.duplicate())).isEqualTo(data.remaining());
    }
    assertThat(reader.scan(read(bytes("\r\n0\r\n\r\n")))).isEqualTo(7);
    assertThat(reader.finished()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"g\r\n", "-1\r\n", "0x5\r\n", " 5\r\n", "\r\n", "+5\r\n", "5\u00a0\r\n"})
  void invalidChunkSizesAreRefused(String line) {
    refusalOf(line);
  }

  @Test
  void aChunkSizeThatOverflowsIsRefused() {
    assertThat(refusalOf("8000000000000000\r\n").reason()).contains("overflow");
    refusalOf("FFFFFFFFFFFFFFFFF\r\n");
    refusalOf("10000000000000000\r\n");
  }

  @Test
  void whitespaceAfterASizeWithoutAnExtensionIsRefused() {
    assertThat(refusalOf("5 \r\nhello\r\n0\r\n\r\n").reason()).contains("whitespace");
    assertThat(refusalOf("5\t\r\n").reason()).contains("whitespace");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "5\nhello\r\n0\r\n\r\n",
        "5;a\nhello\r\n",
        "5;a=\"b\nc\"\r\n",
        "5\r\nhello\n0\r\n\r\n",
        "5\r\nhello\r\n0\n\r\n",
        "5\r\nhello\r\n0\r\n\n",
        "0\r\nX: y\n\r\n"
      })
  void aBareLfInAChunkedBodyIsRefused(String body) {
    refusalOf(body);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"5\rhello", "5;a\r\r\n", "5\r\nhello\r\r\n", "0\r\nX: y\r\r\n", "0\r\n\r\r"})
  void aBareCrInAChunkedBodyIsRefused(String body) {
    refusalOf(body);
  }

  @Test
  void chunkDataLongerThanItsSizeIsRefused() {
    assertThat(refusalOf("3\r\nabcd\r\n0\r\n\r\n").reason()).contains("not followed by CRLF");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "5;\r\n",
        "5;=b\r\n",
        "5;a=\r\n",
        "5;a=b c\r\n",
        "5;a b\r\n",
        "5;a=\"b\"c\r\n",
        "5;a=\"b\u0001\"\r\n",
        "5;a@\r\n"
      })
  void malformedExtensionsAreRefused(String line) {
    refusalOf(line);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0\r\n X: y\r\n\r\n",
        "0\r\nX : y\r\n\r\n",
        "0\r\nX(: y\r\n\r\n",
        "0\r\nX: a\u0000\r\n\r\n",
        "0\r\n: y\r\n\r\n"
      })
  void malformedTrailersAreRefused(String body) {
    refusalOf(body);
  }

  @Test
  void aChunkLineAndTrailersAreBounded() {
    refusalOf("5;" + "a".repeat(ChunkedReader.MAX_CHUNK_LINE) + "\r\n");
    assertThat(
            scanWhole(
                "5;" + "a".repeat(ChunkedReader.MAX_CHUNK_LINE - 5) + "\r\nhello\r\n0\r\n\r\n", ""))
        .isPositive();
    refusalOf("0\r\nX: " + "v".repeat(MAX_TRAILERS) + "\r\n\r\n");
    assertThat(scanWhole("0\r\nX: " + "v".repeat(MAX_TRAILERS - 7) + "\r\n\r\n", "")).isPositive();
  }

  @Test
  void aResponseBodyIsRefusedWithItsOwnStatus() {
    BodyReader reader = BodyFraming.CHUNKED.reader(502, MAX_TRAILERS);
    assertThat(reader.scan(read(bytes("5\r\nhel")))).isEqualTo(6);
    assertThat(reader.scan(read(bytes("lo!")))).isEqualTo(2); // the chunk is 5 bytes, not 6
    assertThat(reader.refusal()).isNotNull();
    assertThat(reader.refusal().status()).isEqualTo(502);
  }

  @Test
  void aChunkedBodyCutShortByCloseIsIncomplete() {
    BodyReader reader = reader();
    reader.scan(read(bytes("5\r\nhello\r\n")));
    assertThat(reader.endOfInput()).isFalse();
  }

  @Test
  void lengthAndCloseDelimitedBodies() {
    BodyReader length = new BodyFraming.Length(5).reader(400, MAX_TRAILERS);
    assertThat(length.scan(read(bytes("abc")))).isEqualTo(3);
    assertThat(length.finished()).isFalse();
    assertThat(length.scan(read(bytes("deGET")))).isEqualTo(2);
    assertThat(length.finished()).isTrue();
    assertThat(length.scan(read(bytes("GET")))).isZero();
    BodyReader none = BodyFraming.NONE.reader(400, MAX_TRAILERS);
    assertThat(none.finished()).isTrue();
    assertThat(none.scan(read(bytes("GET")))).isZero();
    BodyReader cut = new BodyFraming.Length(5).reader(400, MAX_TRAILERS);
    cut.scan(read(bytes("abc")));
    assertThat(cut.endOfInput()).isFalse();
    BodyReader toClose = BodyFraming.UNTIL_CLOSE.reader(502, MAX_TRAILERS);
    assertThat(toClose.scan(read(bytes("anything")))).isEqualTo(8);
    assertThat(toClose.finished()).isFalse();
    assertThat(toClose.endOfInput()).isTrue();
    assertThat(toClose.finished()).isTrue();
  }
}
