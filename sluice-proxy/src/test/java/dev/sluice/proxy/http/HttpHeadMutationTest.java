package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded mutation fuzz of the head readers, the same every run (the coverage-guided one, with
 * Jazzer, is {@code HttpHeadFuzzTest}): valid requests and responses, mutated a few times each,
 * read whole, cut in two and followed by more bytes; every invariant of {@link HttpChecks} holds.
 */
class HttpHeadMutationTest {
  private static final int ITERATIONS = 20_000;

  static final List<String> REQUESTS =
      List.of(
          "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
          "POST /p?q=1 HTTP/1.1\r\nHost: api.example.com:8080\r\nContent-Length: 5\r\n\r\nhello",
          "PUT /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
              + "5;x=\"y\"\r\nhello\r\n0\r\nT: v\r\n\r\n",
          "GET http://a.example/x HTTP/1.1\r\nHost: b\r\nConnection: close, X-A\r\nX-A: 1\r\n\r\n",
          "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
          "\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
          "OPTIONS * HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n");

  static final List<String> RESPONSES =
      List.of(
          "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
          "HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
          "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
          "HTTP/1.1 304\r\nETag: \"x\"\r\n\r\n",
          "HTTP/1.1 200 OK\r\nServer: s\r\n\r\nuntil close");

  @Test
  void mutatedHeadsKeepEveryInvariant() {
    Random random = new Random(0x4854_5450L);
    int[] outcomes = new int[3];
    for (int i = 0; i < ITERATIONS; i++) {
      boolean request = random.nextBoolean();
      List<String> seeds = request ? REQUESTS : RESPONSES;
      byte[] input = Heads.bytes(seeds.get(random.nextInt(seeds.size())));
      for (int m = random.nextInt(4); m > 0; m--) {
        input = mutate(input, random);
      }
      HeadResult<?> result;
      try {
        result = HttpChecks.checkAll(request, input, random.nextInt());
      } catch (AssertionError e) {
        throw new AssertionError("iteration " + i + ": " + e.getMessage(), e);
      }
      outcomes[
          switch (result) {
            case HeadResult.NeedMore<?> _ -> 0;
            case HeadResult.Complete<?> _ -> 1;
            case HeadResult.Refused<?> _ -> 2;
          }]++;
    }
    assertThat(outcomes[0]).as("undecided").isPositive();
    assertThat(outcomes[1]).as("complete").isPositive();
    assertThat(outcomes[2]).as("refused").isPositive();
  }

  private static final byte[][] TOKENS = {
    Heads.bytes("\r\n"),
    Heads.bytes("\r"),
    Heads.bytes("\n"),
    Heads.bytes(" "),
    Heads.bytes(":"),
    Heads.bytes("\t"),
    Heads.bytes("\0"),
    Heads.bytes(","),
    Heads.bytes(";"),
    Heads.bytes("Transfer-Encoding: chunked\r\n"),
    Heads.bytes("Content-Length: 3\r\n"),
    Heads.bytes("Host: b\r\n"),
    Heads.bytes("0\r\n\r\n"),
    Heads.bytes("HTTP/1.1"),
    Heads.bytes("\u00ff")
  };

  private static byte[] mutate(byte[] input, Random random) {
    int n = input.length;
    int at = n == 0 ? 0 : random.nextInt(n + 1);
    return switch (random.nextInt(5)) {
      case 0 -> { // replace a byte
        byte[] out = input.clone();
        if (n > 0) {
          out[Math.min(at, n - 1)] = (byte) random.nextInt(256);
        }
        yield out;
      }
      case 1 -> { // delete a run
        int len = Math.min(n - Math.min(at, n), 1 + random.nextInt(4));
        byte[] out = new byte[n - len];
        System.arraycopy(input, 0, out, 0, Math.min(at, n));
        System.arraycopy(
            input, Math.min(at, n) + len, out, Math.min(at, n), n - Math.min(at, n) - len);
        yield out;
      }
      case 2 -> insert(input, at, TOKENS[random.nextInt(TOKENS.length)]);
      case 3 -> insert(input, at, new byte[] {(byte) random.nextInt(256)});
      default -> Arrays.copyOf(input, at); // truncate
    };
  }

  private static byte[] insert(byte[] input, int at, byte[] what) {
    byte[] out = new byte[input.length + what.length];
    System.arraycopy(input, 0, out, 0, at);
    System.arraycopy(what, 0, out, at, what.length);
    System.arraycopy(input, at, out, at + what.length, input.length - at);
    return out;
  }
}
