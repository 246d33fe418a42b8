package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.complete;
import static dev.sluice.proxy.http.Heads.completeResponse;
import static dev.sluice.proxy.http.Heads.request;
import static dev.sluice.proxy.http.Heads.response;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The heads written for the other side: forwarded-for modes, configured edits with the connection's
 * facts, hop-by-hop fields, framing fields written once, each head exact size and readable again.
 */
class HeadWriterTest {
  private static final ConnectionFacts FACTS =
      new ConnectionFacts(
          "192.0.2.7",
          40123,
          true,
          "api.example.com",
          "http/1.1",
          "771,4865-4866,0-23,29,0",
          "t13d1516h2_8daaf6152771_e5627efa2ab1");
  private static final ConnectionFacts PLAIN =
      new ConnectionFacts("2001:db8::5", 5000, false, null, null, null, null);

  private static String upstream(
      String request, HeaderRewrite rewrite, ConnectionFacts facts, boolean keep) {
    byte[] out = HeadWriter.request(complete(request(request)), rewrite, facts, keep);
    // What was written is one whole head, exactly: readable again, nothing after it.
    HeadResult<RequestHead> again = request(new String(out, StandardCharsets.ISO_8859_1));
    assertThat(((HeadResult.Complete<RequestHead>) again).consumed()).isEqualTo(out.length);
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  private static String upstream(String request) {
    return upstream(request, HeaderRewrite.DEFAULT, FACTS, true);
  }

  @Test
  void replaceDropsWhatTheClientClaimedAndSaysWhoItIs() {
    String out =
        upstream(
            "GET /x HTTP/1.1\r\nHost: a.example\r\nX-Forwarded-For: 10.0.0.1\r\n"
                + "x-forwarded-proto: https\r\nX-Forwarded-Host: evil\r\nForwarded: for=1.2.3.4\r\n"
                + "Accept: */*\r\n\r\n");
    assertThat(out)
        .isEqualTo(
            "GET /x HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\nX-Forwarded-For: 192.0.2.7\r\n"
                + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: a.example\r\n\r\n");
  }

  @Test
  void appendKeepsTheChainInOneFieldAndAddsTheClient() {
    HeaderRewrite append =
        new HeaderRewrite(ForwardedFor.APPEND, HeaderEdits.NONE, HeaderEdits.NONE);
    String out =
        upstream(
            "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-Proto: https\r\n"
                + "X-Forwarded-For: 10.0.0.2, 10.0.0.3\r\nForwarded: for=10.0.0.1\r\n\r\n",
            append,
            PLAIN,
            true);
    assertThat(out)
        .isEqualTo(
            "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-Proto: https\r\nForwarded: for=10.0.0.1\r\n"
                + "X-Forwarded-For: 10.0.0.1, 10.0.0.2, 10.0.0.3, 2001:db8::5\r\n"
                + "X-Forwarded-Host: a\r\n\r\n");
  }

  @Test
  void offTouchesNone() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    String in =
        "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.0.0.1\r\nForwarded: for=x\r\n\r\n";
    assertThat(upstream(in, off, FACTS, true)).isEqualTo(in);
  }

  @Test
  void anAbsoluteTargetBecomesAPathWithItsAuthorityAsHost() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    assertThat(
            upstream(
                "GET http://a.example:81/p?q HTTP/1.1\r\nHost: b.example\r\n\r\n",
                off,
                FACTS,
                true))
        .isEqualTo("GET /p?q HTTP/1.1\r\nHost: a.example:81\r\n\r\n");
  }

  @Test
  void anEmptyHostIn11StaysAndNoneIn10IsNotMadeUp() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    assertThat(upstream("OPTIONS * HTTP/1.1\r\nHost:\r\n\r\n", off, FACTS, true))
        .isEqualTo("OPTIONS * HTTP/1.1\r\nHost:\r\n\r\n");
    assertThat(upstream("GET / HTTP/1.0\r\n\r\n", off, FACTS, false))
        .isEqualTo("GET / HTTP/1.0\r\nConnection: close\r\n\r\n");
  }

  @Test
  void contentLengthIsWrittenOnceAndChunkedLeftAsSent() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    assertThat(
            upstream(
                "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\nContent-Length: 005\r\n\r\n",
                off,
                FACTS,
                true))
        .isEqualTo("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n");
    assertThat(
            upstream("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", off, FACTS, true))
        .isEqualTo("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
    String chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n";
    assertThat(upstream(chunked, off, FACTS, true)).isEqualTo(chunked);
  }

  @Test
  void hopByHopFieldsAndThoseConnectionNamesAreDroppedButNotFraming() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    String out =
        upstream(
            "POST / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, X-Secret, Host, Content-Length\r\n"
                + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\n"
                + "X-Secret: s\r\nUpgrade: websocket\r\nContent-Length: 2\r\nX-Kept: k\r\n\r\n",
            off,
            FACTS,
            true);
    assertThat(out)
        .isEqualTo("POST / HTTP/1.1\r\nHost: a\r\nX-Kept: k\r\nContent-Length: 2\r\n\r\n");
  }

  @Test
  void anUpgradeKeepsUpgradeAndSaysSo() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    assertThat(
            upstream(
                "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Key: k\r\n\r\n",
                off,
                FACTS,
                false))
        .isEqualTo(
            "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nSec-WebSocket-Key: k\r\n"
                + "Connection: upgrade\r\n\r\n");
  }

  @Test
  void theUpstreamConnectionIsClosedOrKeptAsAsked() {
    HeaderRewrite off = new HeaderRewrite(ForwardedFor.OFF, HeaderEdits.NONE, HeaderEdits.NONE);
    assertThat(upstream("GET / HTTP/1.1\r\nHost: a\r\n\r\n", off, FACTS, false))
        .isEqualTo("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    assertThat(upstream("GET / HTTP/1.0\r\n\r\n", off, FACTS, true))
        .isEqualTo("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  }

  @Test
  void setAndRemoveWithTheConnectionsFacts() {
    HeaderEdits edits =
        HeaderEdits.of(
            ordered(
                "X-Env", "prod",
                "X-JA3", "${ja3}",
                "X-JA4", "${ja4}",
                "X-Client", "${client_ip}:${client_port} via ${sni} ($${alpn}=${alpn})"),
            List.of("x-debug", "X-ENV"));
    HeaderRewrite rewrite = new HeaderRewrite(ForwardedFor.OFF, edits, HeaderEdits.NONE);
    assertThat(
            upstream(
                "GET / HTTP/1.1\r\nHost: a\r\nX-Debug: 1\r\nx-env: dev\r\nX-JA3: forged\r\n\r\n",
                rewrite,
                FACTS,
                true))
        .isEqualTo(
            "GET / HTTP/1.1\r\nHost: a\r\nX-Env: prod\r\nX-JA3: 771,4865-4866,0-23,29,0\r\n"
                + "X-JA4: t13d1516h2_8daaf6152771_e5627efa2ab1\r\n"
                + "X-Client: 192.0.2.7:40123 via api.example.com (${alpn}=http/1.1)\r\n\r\n");
    // Facts the connection does not have: not set, and the client's copy still dropped.
    assertThat(upstream("GET / HTTP/1.1\r\nHost: a\r\nX-JA3: forged\r\n\r\n", rewrite, PLAIN, true))
        .isEqualTo("GET / HTTP/1.1\r\nHost: a\r\nX-Env: prod\r\n\r\n");
  }

  @Test
  void aFactThatIsNotAValidFieldValueIsNotSet() {
    ConnectionFacts hostile =
        new ConnectionFacts("192.0.2.7", 1, true, null, "h2\r\nX-Evil: 1", null, null);
    HeaderRewrite rewrite =
        new HeaderRewrite(
            ForwardedFor.OFF,
            HeaderEdits.of(Map.of("X-Alpn", "${alpn}"), List.of()),
            HeaderEdits.NONE);
    assertThat(upstream("GET / HTTP/1.1\r\nHost: a\r\n\r\n", rewrite, hostile, true))
        .isEqualTo("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  }

  @Test
  void badEditsAreRefusedSayingWhy() {
    assertThatThrownBy(() -> ValueTemplate.parse("${nope}")).hasMessageContaining("nope");
    assertThatThrownBy(() -> ValueTemplate.parse("${sni")).hasMessageContaining("unclosed");
    assertThatThrownBy(() -> ValueTemplate.parse("a\r\nb")).hasMessageContaining("0x0d");
    assertThatThrownBy(() -> ValueTemplate.parse(" a")).hasMessageContaining("whitespace");
    assertThatThrownBy(() -> HeaderEdits.of(Map.of("Host", "x"), List.of()))
        .hasMessageContaining("Host");
    assertThatThrownBy(() -> HeaderEdits.of(Map.of(), List.of("Content-Length")))
        .hasMessageContaining("Content-Length");
    assertThatThrownBy(() -> HeaderEdits.of(Map.of("X Y", "x"), List.of()))
        .hasMessageContaining("X Y");
    assertThatThrownBy(() -> HeaderEdits.of(ordered("X-A", "1", "x-a", "2"), List.of()))
        .hasMessageContaining("twice");
    assertThat(ValueTemplate.parse("$5 $").expand(PLAIN)).isEqualTo("$5 $");
  }

  private static Map<String, String> ordered(String... pairs) {
    Map<String, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map;
  }

  // ---- responses ----

  private static String client(String request, String response, HeaderEdits edits) {
    RequestHead req = complete(request(request));
    ResponseHead res = completeResponse(response(response));
    byte[] out = HeadWriter.response(res, req, Exchange.outcome(req, res), edits, FACTS);
    HeadResult<ResponseHead> again = response(new String(out, StandardCharsets.ISO_8859_1));
    assertThat(((HeadResult.Complete<ResponseHead>) again).consumed()).isEqualTo(out.length);
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  @Test
  void aResponseLosesHopByHopAndRemovedFieldsAndGetsTheEditsSet() {
    HeaderEdits edits = HeaderEdits.of(Map.of("X-Served-By", "sluice"), List.of("server"));
    assertThat(
            client(
                "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
                "HTTP/1.1 200 OK\r\nServer: nginx\r\nKeep-Alive: timeout=5\r\nConnection: keep-alive\r\n"
                    + "Content-Length: 2\r\n\r\n",
                edits))
        .isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Served-By: sluice\r\n\r\n");
  }

  @Test
  void theClientIsToldWhenItsConnectionCloses() {
    assertThat(
            client(
                "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                "HTTP/1.1 204 No Content\r\n\r\n",
                HeaderEdits.NONE))
        .isEqualTo("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
    assertThat(
            client(
                "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody until close",
                HeaderEdits.NONE))
        .isEqualTo("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
    assertThat(
            client(
                "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
                HeaderEdits.NONE))
        .isEqualTo("HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n");
  }

  @Test
  void aSwitchKeepsUpgrade() {
    assertThat(
            client(
                "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: x\r\n\r\n",
                HeaderEdits.NONE))
        .isEqualTo(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: x\r\n"
                + "Connection: upgrade\r\n\r\n");
  }

  @Test
  void interimResponsesPassWithoutConnection() {
    assertThat(
            client(
                "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
                "HTTP/1.1 100 Continue\r\n\r\n",
                HeaderEdits.NONE))
        .isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
  }

  @Test
  void theProxysOwnAnswersAreWholeResponses() {
    for (int status : new int[] {400, 405, 408, 414, 431, 501, 502, 503, 504, 505}) {
      byte[] answer = ProxyAnswer.of(status, true);
      String text = new String(answer, StandardCharsets.US_ASCII);
      ResponseHead head = completeResponse(response(text));
      assertThat(head.status()).isEqualTo(status);
      assertThat(head.keepAlive()).isFalse();
      assertThat(text).endsWith("\r\n\r\n" + status + " " + ProxyAnswer.phrase(status) + "\n");
      assertThat(head.declared()).isEqualTo(new BodyFraming.Length(answer.length - head.length()));
    }
    assertThat(
            completeResponse(
                    response(new String(ProxyAnswer.of(503, false), StandardCharsets.US_ASCII)))
                .keepAlive())
        .isTrue();
  }
}
