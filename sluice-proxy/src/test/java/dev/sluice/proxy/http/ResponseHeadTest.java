package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.bytes;
import static dev.sluice.proxy.http.Heads.completeResponse;
import static dev.sluice.proxy.http.Heads.read;
import static dev.sluice.proxy.http.Heads.response;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reading response heads (RFC 9112 §4, §6.3): in pieces, with the body their fields declare, and
 * what an upstream sends wrong refused with 502.
 */
class ResponseHeadTest {
  private static final String OK =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n";

  private static void badGateway(String text) {
    Refusal refusal = Heads.refusal(response(text));
    assertThat(refusal.status()).as(refusal.reason()).isEqualTo(502);
  }

  @Test
  void aResponseHeadAndItsBody() {
    HeadResult<ResponseHead> result = response(OK + "hello");
    ResponseHead head = completeResponse(result);
    assertThat(((HeadResult.Complete<ResponseHead>) result).consumed()).isEqualTo(OK.length());
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.version()).isEqualTo(HttpVersion.HTTP_1_1);
    assertThat(head.declared()).isEqualTo(new BodyFraming.Length(5));
    assertThat(head.keepAlive()).isTrue();
    assertThat(head.fields().first("content-type")).isEqualTo("text/plain");
  }

  @Test
  void cutAtEveryByteTheHeadIsTheSameAndTheHeldPartExact() {
    byte[] all = bytes(OK + "hello");
    for (int cut = 1; cut < OK.length(); cut++) {
      HeadReader<ResponseHead> reader = HeadReader.responses(Heads.MAX);
      HeadResult<ResponseHead> r = Heads.inTwo(reader, all, cut);
      assertThat(((HeadResult.Complete<ResponseHead>) r).consumed()).isEqualTo(OK.length());
      assertThat(completeResponse(r).declared()).isEqualTo(new BodyFraming.Length(5));
      assertThat(reader.heldBytes()).isZero();
    }
  }

  @Test
  void theReasonPhraseMayBeEmptyOrMissing() {
    assertThat(completeResponse(response("HTTP/1.1 204 \r\n\r\n")).status()).isEqualTo(204);
    assertThat(completeResponse(response("HTTP/1.1 404\r\n\r\n")).status()).isEqualTo(404);
    assertThat(completeResponse(response("HTTP/1.0 200 Fine \u00e9t\u00e9\r\n\r\n")).version())
        .isEqualTo(HttpVersion.HTTP_1_0);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 600 OK\r\n\r\n",
        "HTTP/1.1 099 OK\r\n\r\n",
        "HTTP/1.1  200 OK\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/2.0 200 OK\r\n\r\n",
        "http/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 200 O\u0001K\r\n\r\n",
        "\r\nHTTP/1.1 200 OK\r\n\r\n",
        "SSH-2.0-OpenSSH_9.2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX : a\r\n\r\n",
        "HTTP/1.1 200 OK\nX: a\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\u0000\r\n\r\n"
      })
  void malformedResponsesAre502(String text) {
    badGateway(text);
  }

  @Test
  void framingOfResponses() {
    assertThat(
            completeResponse(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
                .declared())
        .isEqualTo(BodyFraming.CHUNKED);
    assertThat(completeResponse(response("HTTP/1.1 200 OK\r\n\r\n")).declared())
        .isEqualTo(BodyFraming.UNTIL_CLOSE);
    assertThat(
            completeResponse(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"))
                .declared())
        .isEqualTo(BodyFraming.UNTIL_CLOSE);
    assertThat(
            completeResponse(response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")).declared())
        .isEqualTo(new BodyFraming.Length(0));
    badGateway("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n");
    badGateway("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n");
    badGateway("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n");
    badGateway("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n");
    badGateway("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  }

  @Test
  void keepAliveOfResponses() {
    assertThat(
            completeResponse(response("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")).keepAlive())
        .isFalse();
    assertThat(
            completeResponse(response("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")).keepAlive())
        .isFalse();
    assertThat(
            completeResponse(
                    response(
                        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"))
                .keepAlive())
        .isTrue();
  }

  @Test
  void aResponseHeadBeyondTheBoundIs502() {
    HeadReader<ResponseHead> reader = HeadReader.responses(9000);
    String head = "HTTP/1.1 200 OK\r\nX: " + "v".repeat(9000) + "\r\n\r\n";
    Refusal refusal = Heads.refusal(reader.offer(read(bytes(head))));
    assertThat(refusal.status()).isEqualTo(502);
    assertThat(refusal.reason()).contains("9000");
  }
}
