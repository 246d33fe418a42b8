package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.bytes;
import static dev.sluice.proxy.http.Heads.complete;
import static dev.sluice.proxy.http.Heads.read;
import static dev.sluice.proxy.http.Heads.refused;
import static dev.sluice.proxy.http.Heads.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Reading request heads (RFC 9112 §2, §3): as they arrive in pieces, pipelined, bounded, and with
 * what the fields say about the body and the connection.
 */
class RequestHeadTest {
  private static final String GET =
      "GET /a/b?c=d HTTP/1.1\r\nHost: Example.COM:8080\r\nUser-Agent: curl/8\r\nAccept: */*\r\n\r\n";

  @Test
  void aWholeHeadIsParsedWhereItLiesAndNothingIsHeld() {
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    ByteBuffer in = read(bytes(GET));
    HeadResult<RequestHead> result = reader.offer(in);
    RequestHead head = complete(result);
    assertThat(head.fields().source()).isSameAs(in); // not copied
    assertThat(((HeadResult.Complete<RequestHead>) result).consumed()).isEqualTo(GET.length());
    assertThat(head.method()).isEqualTo("GET");
    assertThat(head.target()).isEqualTo("/a/b?c=d");
    assertThat(head.path()).isEqualTo("/a/b?c=d");
    assertThat(head.form()).isEqualTo(TargetForm.ORIGIN);
    assertThat(head.authority()).isEqualTo("Example.COM:8080");
    assertThat(head.version()).isEqualTo(HttpVersion.HTTP_1_1);
    assertThat(head.length()).isEqualTo(GET.length());
    assertThat(head.fields().size()).isEqualTo(3);
    assertThat(head.fields().name(1)).isEqualTo("User-Agent");
    assertThat(head.fields().value(1)).isEqualTo("curl/8");
    assertThat(head.framing()).isEqualTo(BodyFraming.NONE);
    assertThat(head.keepAlive()).isTrue();
    assertThat(reader.heldBytes()).isZero();
  }

  @Test
  void cutAtEveryByteTheHeldPartIsExactlyTheBytesReceivedAndTheHeadTheSame() {
    byte[] all = bytes(GET + "POST");
    for (int cut = 1; cut < GET.length(); cut++) {
      HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
      assertThat(reader.offer(read(java.util.Arrays.copyOf(all, cut))))
          .isInstanceOf(HeadResult.NeedMore.class);
      assertThat(reader.heldBytes()).as("cut %d", cut).isEqualTo(cut);
      HeadResult<RequestHead> rest =
          reader.offer(read(java.util.Arrays.copyOfRange(all, cut, all.length)));
      RequestHead head = complete(rest);
      assertThat(((HeadResult.Complete<RequestHead>) rest).consumed())
          .isEqualTo(GET.length() - cut);
      assertThat(head.target()).isEqualTo("/a/b?c=d");
      // Completed from two reads: one copy of exactly the head's bytes, none of what follows.
      assertThat(head.fields().source().capacity()).isEqualTo(GET.length());
      assertThat(head.fields().value(0)).isEqualTo("Example.COM:8080");
      assertThat(head.fields().value(2)).isEqualTo("*/*");
      assertThat(reader.heldBytes()).isZero();
    }
  }

  @Test
  void byteByByteTheHeadIsTheSame() {
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    byte[] all = bytes(GET);
    for (int i = 0; i < all.length - 1; i++) {
      assertThat(reader.offer(read(new byte[] {all[i]}))).isInstanceOf(HeadResult.NeedMore.class);
      assertThat(reader.heldBytes()).isEqualTo(i + 1);
    }
    RequestHead head = complete(reader.offer(read(new byte[] {all[all.length - 1]})));
    assertThat(head.fields().first("accept")).isEqualTo("*/*");
    assertThat(head.length()).isEqualTo(all.length);
  }

  @Test
  void pipelinedRequestsAreReadOneAtATimeFromWhereTheLastEnded() {
    String second = "HEAD /two HTTP/1.1\r\nHost: b\r\n\r\n";
    ByteBuffer in = read(bytes(GET + second + "GET /thr"));
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    HeadResult<RequestHead> first = reader.offer(in);
    int consumed = ((HeadResult.Complete<RequestHead>) first).consumed();
    assertThat(consumed).isEqualTo(GET.length());
    in.position(in.position() + consumed);
    HeadResult<RequestHead> next = reader.offer(in);
    assertThat(complete(next).isHead()).isTrue();
    in.position(in.position() + ((HeadResult.Complete<RequestHead>) next).consumed());
    assertThat(reader.offer(in)).isInstanceOf(HeadResult.NeedMore.class);
    assertThat(reader.heldBytes()).isEqualTo("GET /thr".length());
  }

  @Test
  void emptyLinesBeforeARequestAreSkippedAndHoldNothing() {
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    assertThat(reader.offer(read(bytes("\r\n\r\n")))).isInstanceOf(HeadResult.NeedMore.class);
    assertThat(reader.heldBytes()).isZero();
    HeadResult<RequestHead> r = reader.offer(read(bytes("\r\n" + GET)));
    assertThat(((HeadResult.Complete<RequestHead>) r).consumed()).isEqualTo(GET.length() + 2);
    assertThat(complete(r).length()).isEqualTo(GET.length());
    // A CR in one read, its LF in the next.
    HeadReader<RequestHead> split = HeadReader.requests(Heads.MAX);
    assertThat(split.offer(read(bytes("\r")))).isInstanceOf(HeadResult.NeedMore.class);
    HeadResult<RequestHead> rest = split.offer(read(bytes("\n" + GET)));
    assertThat(((HeadResult.Complete<RequestHead>) rest).consumed()).isEqualTo(GET.length() + 1);
    assertThat(complete(rest).method()).isEqualTo("GET");
  }

  @Test
  void aRequestLineOfEightKibIsReadAndOneByteMoreIs414BeforeItEnds() {
    String target = "/" + "a".repeat(RequestSyntax.MAX_REQUEST_LINE - "GET  HTTP/1.1".length() - 1);
    String line = "GET " + target + " HTTP/1.1";
    assertThat(line).hasSize(RequestSyntax.MAX_REQUEST_LINE);
    assertThat(complete(request(line + "\r\nHost: a\r\n\r\n")).target()).isEqualTo(target);
    refused("GET " + target + "a HTTP/1.1\r\nHost: a\r\n\r\n", 414);
    // Without its end: refused as soon as it is too long, nothing held.
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    assertThat(reader.offer(read(bytes("GET /" + "a".repeat(8000)))))
        .isInstanceOf(HeadResult.NeedMore.class);
    assertThat(Heads.refusal(reader.offer(read(bytes("a".repeat(200))))).status()).isEqualTo(414);
    assertThat(reader.heldBytes()).isZero();
  }

  @Test
  void aHeadOfMaxHeaderBytesIsReadAndOneByteMoreIs431() {
    String start = "GET / HTTP/1.1\r\nHost: a\r\nX: ";
    String filler = "v".repeat(Heads.MAX - start.length() - 4);
    String head = start + filler + "\r\n\r\n";
    assertThat(head).hasSize(Heads.MAX);
    assertThat(complete(request(head)).length()).isEqualTo(Heads.MAX);
    refused(start + filler + "v\r\n\r\n", 431);
    // Never ending: refused once past the bound, whatever the cut.
    HeadReader<RequestHead> reader = HeadReader.requests(Heads.MAX);
    assertThat(reader.offer(read(bytes(start + filler)))).isInstanceOf(HeadResult.NeedMore.class);
    assertThat(Heads.refusal(reader.offer(read(bytes("vvvvv")))).status()).isEqualTo(431);
  }

  @Test
  void theBoundIsTheOneGiven() {
    HeadReader<RequestHead> reader = HeadReader.requests(9000);
    String head = "GET / HTTP/1.1\r\nHost: a\r\nX: " + "v".repeat(9000) + "\r\n\r\n";
    assertThat(Heads.refusal(reader.offer(read(bytes(head)))).status()).isEqualTo(431);
  }

  @Test
  void http10NeedsNoHostAndKeepsAliveOnlyWhenAsked() {
    RequestHead plain = complete(request("GET / HTTP/1.0\r\n\r\n"));
    assertThat(plain.version()).isEqualTo(HttpVersion.HTTP_1_0);
    assertThat(plain.authority()).isEmpty();
    assertThat(plain.keepAlive()).isFalse();
    assertThat(complete(request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")).keepAlive())
        .isTrue();
    assertThat(
            complete(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")).keepAlive())
        .isFalse();
    assertThat(
            complete(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, Close\r\n\r\n"))
                .keepAlive())
        .isFalse();
  }

  @Test
  void laterHttp1MinorVersionsAreReadAs11AndOthersAre505() {
    assertThat(complete(request("GET / HTTP/1.2\r\nHost: a\r\n\r\n")).version())
        .isEqualTo(HttpVersion.HTTP_1_1);
    refused("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505);
    refused("GET / HTTP/0.9\r\n\r\n", 505);
    refused("GET / http/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400);
    refused("GET /\r\nHost: a\r\n\r\n", 400);
  }

  @Test
  void theRequestLineHasOneSpaceBetweenItsParts() {
    refused("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400);
    refused("GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused(" GET / HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET\r\nHost: a\r\n\r\n", 400);
    refused("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET /\u00e9 HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET /\u007f HTTP/1.1\r\nHost: a\r\n\r\n", 400);
  }

  @Test
  void extensionMethodsArePassedOn() {
    assertThat(complete(request("PURGE /x HTTP/1.1\r\nHost: a\r\n\r\n")).method())
        .isEqualTo("PURGE");
  }

  @Test
  void anAbsoluteTargetsAuthorityOverridesHost() {
    RequestHead head =
        complete(request("GET http://Api.Example.com:81/v1?x HTTP/1.1\r\nHost: other\r\n\r\n"));
    assertThat(head.form()).isEqualTo(TargetForm.ABSOLUTE);
    assertThat(head.authority()).isEqualTo("Api.Example.com:81");
    assertThat(head.path()).isEqualTo("/v1?x");
    assertThat(complete(request("GET https://a HTTP/1.1\r\nHost: a\r\n\r\n")).path())
        .isEqualTo("/");
    assertThat(complete(request("GET http://a?q HTTP/1.1\r\nHost: a\r\n\r\n")).path())
        .isEqualTo("/?q");
    refused("GET http://user@a/ HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET ftp://a/ HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET http:/// HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    refused("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", 400);
  }

  @Test
  void asteriskOnlyForOptionsAndConnectIsRecognised() {
    assertThat(complete(request("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n")).form())
        .isEqualTo(TargetForm.ASTERISK);
    refused("GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400);
    RequestHead connect = complete(request("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n"));
    assertThat(connect.isConnect()).isTrue();
    assertThat(connect.form()).isEqualTo(TargetForm.AUTHORITY);
    refused("GET a:443 HTTP/1.1\r\nHost: a\r\n\r\n", 400);
  }

  @Test
  void bodyFramingOfARequest() {
    assertThat(
            complete(request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n")).framing())
        .isEqualTo(new BodyFraming.Length(12));
    assertThat(
            complete(request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n")).framing())
        .isEqualTo(BodyFraming.NONE);
    assertThat(
            complete(
                    request(
                        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n"))
                .framing())
        .isEqualTo(BodyFraming.CHUNKED);
    assertThat(
            complete(
                    request(
                        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n"))
                .framing())
        .isEqualTo(BodyFraming.CHUNKED);
    assertThat(complete(request("POST / HTTP/1.1\r\nHost: a\r\n\r\n")).framing())
        .isEqualTo(BodyFraming.NONE);
  }

  @Test
  void expectContinueOnlyIn11() {
    assertThat(
            complete(
                    request(
                        "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n"))
                .expectContinue())
        .isTrue();
    assertThat(
            complete(request("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"))
                .expectContinue())
        .isFalse();
  }

  @Test
  void upgradeNeedsConnectionUpgradeAndNeverH2c() {
    String ws = "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    assertThat(complete(request(ws)).upgrade()).isTrue();
    assertThat(
            complete(request("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n")).upgrade())
        .isFalse();
    assertThat(
            complete(
                    request(
                        "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\n"))
                .upgrade())
        .isFalse();
    assertThat(
            complete(request("GET / HTTP/1.0\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n"))
                .upgrade())
        .isFalse();
  }

  @Test
  void valuesAreTrimmedAndObsTextKept() {
    RequestHead head =
        complete(request("GET / HTTP/1.1\r\nHost:a\r\nX:  \t v\u00e9 w \t\r\nEmpty:\r\n\r\n"));
    assertThat(head.fields().value(0)).isEqualTo("a");
    assertThat(head.fields().value(1)).isEqualTo("v\u00e9 w");
    assertThat(head.fields().value(2)).isEmpty();
  }

  @Test
  void aLineWithoutColonIsRefused() {
    refused("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400);
    refused("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", 400);
  }
}
