package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.bytes;
import static dev.sluice.proxy.http.Heads.complete;
import static dev.sluice.proxy.http.Heads.read;
import static dev.sluice.proxy.http.Heads.refused;
import static dev.sluice.proxy.http.Heads.request;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each defence against request smuggling (RFC 9112 §6, §11.2; the cases of the published write-ups:
 * CL.TE, TE.CL, TE.TE, obs-fold, whitespace and control characters around field names and values,
 * Host confusion): each refused with 400 (501 for an unknown coding) and a reason, each in a test
 * of its own. Chunk-size cases are in {@link ChunkedReaderTest}; the same defences end to end,
 * through a listener, are the varnishtest cases that {@code forward.VarnishtestTest} runs.
 */
class SmugglingTest {
  private static final String POST = "POST / HTTP/1.1\r\nHost: a\r\n";

  @Test
  void contentLengthWithTransferEncodingIsRefused() {
    assertThat(refused(POST + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", 400))
        .contains("both");
    refused(POST + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n", 400);
  }

  @Test
  void differingContentLengthsAreRefused() {
    refused(POST + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", 400);
    refused(POST + "Content-Length: 5, 6\r\n\r\n", 400);
  }

  @Test
  void identicalContentLengthsAreOneLength() {
    assertThat(complete(request(POST + "Content-Length: 5, 5\r\n\r\n")).framing())
        .isEqualTo(new BodyFraming.Length(5));
    assertThat(
            complete(request(POST + "Content-Length: 5\r\ncontent-length: 005\r\n\r\n")).framing())
        .isEqualTo(new BodyFraming.Length(5));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "+5",
        "-1",
        "0x5",
        "5 5",
        "",
        "5,",
        ",5",
        "5;",
        "5.0",
        "\u0665",
        "99999999999999999999",
        "9223372036854775808"
      })
  void malformedContentLengthsAreRefused(String value) {
    assertThat(refused(POST + "Content-Length: " + value + "\r\n\r\n", 400))
        .contains("Content-Length");
  }

  @Test
  void theLargestContentLengthIsRead() {
    assertThat(complete(request(POST + "Content-Length: 9223372036854775807\r\n\r\n")).framing())
        .isEqualTo(new BodyFraming.Length(Long.MAX_VALUE));
  }

  @Test
  void transferEncodingNotEndingInChunkedIsRefused() {
    refused(POST + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400);
    refused(POST + "Transfer-Encoding: gzip\r\n\r\n", 400);
    refused(POST + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400);
  }

  @Test
  void chunkedTwiceIsRefused() {
    refused(POST + "Transfer-Encoding: chunked, chunked\r\n\r\n", 400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"foo, chunked", "chunkedx", "xchunked", "identity", "chunk"})
  void unknownTransferCodingsAre501(String value) {
    refused(POST + "Transfer-Encoding: " + value + "\r\n\r\n", 501);
  }

  @ParameterizedTest
  @ValueSource(strings = {", chunked", "chunked,", "chunked;q=1", "\"chunked\"", ""})
  void malformedTransferEncodingIsRefused(String value) {
    refused(POST + "Transfer-Encoding: " + value + "\r\n\r\n", 400);
  }

  @Test
  void transferEncodingInHttp10IsRefused() {
    refused("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
  }

  @Test
  void whitespaceBeforeTheColonIsRefused() {
    assertThat(refused(POST + "Transfer-Encoding : chunked\r\n\r\n", 400)).contains("colon");
    refused(POST + "Content-Length\t: 5\r\n\r\n", 400);
    refused("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"X(y)", "Fo@o", "a/b", "x\"y", "\u00e9t\u00e9", "[x]", "x{", "a=b"})
  void invalidFieldNameCharactersAreRefused(String name) {
    assertThat(refused(POST + name + ": 1\r\n\r\n", 400)).contains("field name");
  }

  @Test
  void obsFoldIsRefused() {
    assertThat(refused(POST + "X: a\r\n b\r\n\r\n", 400)).contains("obs-fold");
    refused(POST + "Transfer-Encoding: gzip\r\n\tchunked\r\n\r\n", 400);
  }

  @Test
  void whitespaceBeforeTheFirstFieldIsRefused() {
    assertThat(refused("GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400)).contains("first header field");
  }

  @Test
  void aCrInAValueIsRefused() {
    assertThat(refused(POST + "X: a\rb\r\n\r\n", 400)).contains("CR");
  }

  @Test
  void anLfInAValueIsRefused() {
    // An LF ends the line: without its CR it is a bare LF.
    assertThat(refused(POST + "X: a\nTransfer-Encoding: chunked\r\n\r\n", 400)).contains("LF");
  }

  @Test
  void aNulInAValueIsRefused() {
    assertThat(refused(POST + "X: a\u0000b\r\n\r\n", 400)).contains("NUL");
  }

  @ParameterizedTest
  @ValueSource(strings = {"\u0001", "\u001f", "\u007f", "\u000b", "\u000c"})
  void otherControlCharactersInAValueAreRefused(String c) {
    refused(POST + "X: a" + c + "b\r\n\r\n", 400);
  }

  @Test
  void aBareCrIsRefusedAnywhere() {
    assertThat(refused("GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", 400)).contains("bare CR");
    assertThat(refused("GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n", 400)).contains("bare CR");
    assertThat(refused("GET / HTTP/1.1\r\nHost: a\r\n\r\r\n", 400)).contains("bare CR");
  }

  @Test
  void aBareLfIsRefusedAnywhere() {
    assertThat(refused("GET / HTTP/1.1\nHost: a\r\n\r\n", 400)).contains("LF without CR");
    assertThat(refused("GET / HTTP/1.1\r\nHost: a\n\r\n", 400)).contains("LF without CR");
    assertThat(refused("GET / HTTP/1.1\r\nHost: a\r\n\n", 400)).contains("LF without CR");
  }

  @Test
  void aMissingHostIn11IsRefused() {
    assertThat(refused("GET / HTTP/1.1\r\nX: a\r\n\r\n", 400)).contains("without Host");
  }

  @Test
  void aRepeatedHostIsRefused() {
    refused("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400);
    refused("GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", 400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a b", "a,b", "a@b", "a/b", "a:b", "a:123456", "[::1", ":80", "a%zz"})
  void anInvalidHostIsRefused(String host) {
    refused("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 400);
  }

  @Test
  void validHostsAreRead() {
    for (String host : new String[] {"a", "a.b:80", "[::1]:8080", "192.0.2.1", "x-y_z~", "a:"}) {
      assertThat(complete(request("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n")).authority())
          .isEqualTo(host);
    }
  }

  @Test
  void anAbsoluteTargetWinsOverADifferentHost() {
    // RFC 9112 §3.2.2: the Host field is replaced by the target's authority, not refused; the
    // upstream gets that authority as Host (see HeadWriterTest).
    RequestHead head =
        complete(request("GET http://a.example/x HTTP/1.1\r\nHost: b.example\r\n\r\n"));
    assertThat(head.authority()).isEqualTo("a.example");
    refused("GET http://a.example/x HTTP/1.1\r\n\r\n", 400);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0x5\r\nworld\r\n0\r\n\r\n",
        "10000000000000005\r\nworld\r\n",
        "5 \r\nworld\r\n",
        "0\r\r\n\r\n"
      })
  void noPartOfARefusedChunkLineIsCountedAsBody(String refusedLine) {
    // Forwarded, the "0" of "0x5" and then the close could end the body for a lenient upstream.
    BodyReader body = BodyFraming.CHUNKED.reader(400, 1024);
    assertThat(body.scan(read(bytes("5\r\nhello\r\n" + refusedLine)))).isEqualTo(10);
    assertThat(body.refusal()).isNotNull();
  }

  @Test
  void noPartOfARefusedTrailerLineIsCountedAsBody() {
    BodyReader body = BodyFraming.CHUNKED.reader(400, 1024);
    assertThat(body.scan(read(bytes("0\r\nX-Ok: 1\r\nX-Bad : 2\r\n\r\n")))).isEqualTo(12);
    assertThat(body.refusal()).isNotNull();
  }

  @Test
  void aRefusedChunkLineBegunInAnEarlierReadStopsAtTheRead() {
    // No bytes are held between reads: what came of the line before was counted then.
    BodyReader body = BodyFraming.CHUNKED.reader(400, 1024);
    assertThat(body.scan(read(bytes("5\r\nhello\r\n0")))).isEqualTo(11);
    assertThat(body.scan(read(bytes("x5\r\nworld\r\n")))).isZero();
    assertThat(body.refusal()).isNotNull();
  }
}
