package dev.sluice.proxy.http;

import static dev.sluice.proxy.http.Heads.complete;
import static dev.sluice.proxy.http.Heads.completeResponse;
import static dev.sluice.proxy.http.Heads.request;
import static dev.sluice.proxy.http.Heads.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.Exchange.Bad;
import dev.sluice.proxy.http.Exchange.Final;
import dev.sluice.proxy.http.Exchange.Interim;
import dev.sluice.proxy.http.Exchange.Outcome;
import dev.sluice.proxy.http.Exchange.Switch;
import org.junit.jupiter.api.Test;

/**
 * What a response means for its request and both connections: bodies that are not there (HEAD, 1xx,
 * 204, 304), interim responses, upgrades, and the keep-alive rules of RFC 9112 §9.3.
 */
class ExchangeTest {
  private static final String GET = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";

  private static Outcome outcome(String request, String response) {
    return Exchange.outcome(complete(request(request)), completeResponse(response(response)));
  }

  @Test
  void aResponseWithALengthKeepsBothConnections() {
    assertThat(outcome(GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(3), true, true));
  }

  @Test
  void noBodyForHead204And304WhateverTheirFieldsSay() {
    assertThat(
            outcome(
                "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"))
        .isEqualTo(new Final(BodyFraming.NONE, true, true));
    assertThat(
            outcome(
                "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
        .isEqualTo(new Final(BodyFraming.NONE, true, true));
    assertThat(outcome(GET, "HTTP/1.1 204 No Content\r\n\r\n"))
        .isEqualTo(new Final(BodyFraming.NONE, true, true));
    assertThat(outcome(GET, "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"))
        .isEqualTo(new Final(BodyFraming.NONE, true, true));
  }

  @Test
  void aBodyUntilCloseClosesBothConnections() {
    assertThat(outcome(GET, "HTTP/1.1 200 OK\r\n\r\n"))
        .isEqualTo(new Final(BodyFraming.UNTIL_CLOSE, false, false));
  }

  @Test
  void interimResponsesAreForwardedTo11ClientsOnly() {
    String put = "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n";
    assertThat(outcome(put, "HTTP/1.1 100 Continue\r\n\r\n")).isEqualTo(new Interim(true));
    assertThat(outcome(GET, "HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"))
        .isEqualTo(new Interim(true));
    assertThat(
            outcome("PUT / HTTP/1.0\r\nContent-Length: 1\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n"))
        .isEqualTo(new Interim(false));
  }

  @Test
  void a101SwitchesOnlyARequestThatAskedToUpgrade() {
    String ws = "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n";
    String switching =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    assertThat(outcome(ws, switching)).isInstanceOf(Switch.class);
    assertThat(outcome(GET, switching)).isInstanceOf(Bad.class);
    assertThat(((Bad) outcome(GET, switching)).refusal().status()).isEqualTo(502);
    // Refused upgrade: an ordinary response, the upstream connection not reused.
    assertThat(outcome(ws, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(0), true, false));
  }

  @Test
  void keepAliveFollowsEachSidesVersionAndConnection() {
    assertThat(
            outcome(
                "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(0), false, true));
    assertThat(outcome(GET, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(0), true, false));
    assertThat(outcome("GET / HTTP/1.0\r\n\r\n", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(0), false, false));
    assertThat(
            outcome(
                "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        .isEqualTo(new Final(new BodyFraming.Length(0), true, true));
  }
}
