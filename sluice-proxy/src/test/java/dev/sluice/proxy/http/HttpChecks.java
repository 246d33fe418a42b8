package dev.sluice.proxy.http;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;

/**
 * What must hold for any bytes offered to the head readers, whatever they are: used by the seeded
 * mutation test and by the fuzz test. Throws {@link AssertionError} naming the input.
 */
final class HttpChecks {
  private HttpChecks() {}

  static final int MAX = 4096;
  private static final Set<Integer> REQUEST_STATUSES = Set.of(400, 414, 431, 501, 505);
  private static final ConnectionFacts FACTS =
      new ConnectionFacts("192.0.2.1", 1234, true, "a.example", "h2", "771,1,2,3,4", "t13d");
  private static final RequestHead GET =
      ((HeadResult.Complete<RequestHead>)
              HeadReader.requests(MAX)
                  .offer(ByteBuffer.wrap(Heads.bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))))
          .head();

  /** The outcome as comparable text: kind, bytes consumed, and the head's gist. */
  static String gist(HeadResult<?> result) {
    return switch (result) {
      case HeadResult.NeedMore<?> _ -> "need more";
      case HeadResult.Refused<?> _ -> "refused";
      case HeadResult.Complete<?>(RequestHead h, int consumed) ->
          "request "
              + consumed
              + " "
              + h.method()
              + " "
              + h.target()
              + " "
              + h.version()
              + " "
              + h.framing()
              + " "
              + h.keepAlive()
              + h.upgrade()
              + h.expectContinue()
              + " "
              + fields(h.fields());
      case HeadResult.Complete<?>(ResponseHead h, int consumed) ->
          "response "
              + consumed
              + " "
              + h.status()
              + " "
              + h.reason()
              + " "
              + h.declared()
              + " "
              + h.keepAlive()
              + " "
              + fields(h.fields());
      case HeadResult.Complete<?> c -> throw new AssertionError("a head of " + c.head());
    };
  }

  private static String fields(Fields fields) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < fields.size(); i++) {
      out.append(fields.name(i)).append('=').append(fields.value(i)).append(';');
    }
    return out.toString();
  }

  private static HeadReader<?> reader(boolean request) {
    return request ? HeadReader.requests(MAX) : HeadReader.responses(MAX);
  }

  private static HeadResult<?> offer(HeadReader<?> reader, byte[] input, byte[] whole) {
    try {
      return reader.offer(Heads.read(input));
    } catch (RuntimeException | Error e) {
      throw new AssertionError(describe(whole) + " threw " + e, e);
    }
  }

  /** Every invariant for {@code input}, read as requests or responses, cut at {@code cut}. */
  static HeadResult<?> checkAll(boolean request, byte[] input, int cut) {
    HeadReader<?> reader = reader(request);
    HeadResult<?> whole = offer(reader, input, input);
    switch (whole) {
      case HeadResult.NeedMore<?> _ -> {
        check(reader.heldBytes() <= input.length, input, "held " + reader.heldBytes());
        check(reader.heldBytes() <= MAX, input, "held more than the bound");
        check(request || reader.heldBytes() == input.length, input, "a response not held whole");
      }
      case HeadResult.Refused<?> r -> {
        check(!r.reason().isBlank(), input, "a refusal without a reason");
        check(
            request ? REQUEST_STATUSES.contains(r.status()) : r.status() == 502,
            input,
            "status " + r.status());
        check(reader.heldBytes() == 0, input, "bytes held after a refusal");
      }
      case HeadResult.Complete<?> c -> {
        check(c.consumed() > 0 && c.consumed() <= input.length, input, "consumed " + c.consumed());
        check(reader.heldBytes() == 0, input, "bytes held after a head");
        checkHead(c, input);
        // What follows a head does not change it (pipelining).
        byte[] longer = Arrays.copyOf(input, input.length + 6);
        System.arraycopy(Heads.bytes("GET /\r"), 0, longer, input.length, 6);
        String again = gist(offer(reader(request), longer, input));
        check(again.equals(gist(whole)), input, "with bytes after it: " + again);
      }
    }
    // The same outcome however the bytes are cut.
    int at = Math.floorMod(cut, input.length + 1);
    HeadReader<?> split = reader(request);
    HeadResult<?> first = offer(split, Arrays.copyOf(input, at), input);
    HeadResult<?> outcome = first;
    if (first instanceof HeadResult.NeedMore<?> && at < input.length) {
      check(split.heldBytes() <= at, input, "held " + split.heldBytes() + " of " + at);
      outcome = offer(split, Arrays.copyOfRange(input, at, input.length), input);
      if (outcome instanceof HeadResult.Complete<?> c) {
        outcome = shifted(c, at);
      }
    }
    String expected = gist(whole);
    String got = gist(outcome);
    check(got.equals(expected), input, "cut at " + at + ": " + got + ", whole: " + expected);
    return whole;
  }

  private static <H> HeadResult<H> shifted(HeadResult.Complete<H> c, int by) {
    return new HeadResult.Complete<>(c.head(), c.consumed() + by);
  }

  /** A head written for the other side is one whole head; its body reader takes what follows. */
  private static void checkHead(HeadResult.Complete<?> c, byte[] input) {
    ByteBuffer rest = ByteBuffer.wrap(input, c.consumed(), input.length - c.consumed());
    switch (c.head()) {
      case RequestHead h -> {
        check(h.length() <= c.consumed(), input, "length " + h.length());
        byte[] out = HeadWriter.request(h, HeaderRewrite.DEFAULT, FACTS, true);
        HeadResult<RequestHead> written =
            HeadReader.requests(out.length + MAX).offer(ByteBuffer.wrap(out));
        check(
            written instanceof HeadResult.Complete<RequestHead> w
                && w.consumed() == out.length
                && w.head().method().equals(h.method())
                && w.head().framing().equals(h.framing()),
            input,
            "rewritten as " + describe(out) + ": " + gist(written));
        body(h.framing(), rest, 400, input);
      }
      case ResponseHead h -> {
        check(h.length() == c.consumed(), input, "length " + h.length());
        Exchange.Outcome outcome = Exchange.outcome(GET, h);
        if (!(outcome instanceof Exchange.Bad)) {
          byte[] out = HeadWriter.response(h, GET, outcome, HeaderEdits.NONE, FACTS);
          HeadResult<ResponseHead> written =
              HeadReader.responses(out.length + MAX).offer(ByteBuffer.wrap(out));
          check(
              written instanceof HeadResult.Complete<ResponseHead> w
                  && w.consumed() == out.length
                  && w.head().status() == h.status(),
              input,
              "rewritten as " + describe(out) + ": " + gist(written));
        }
        body(h.declared(), rest, 502, input);
      }
      default -> throw new AssertionError(c.head());
    }
  }

  private static void body(BodyFraming framing, ByteBuffer rest, int status, byte[] input) {
    BodyReader reader = framing.reader(status, MAX);
    int before = rest.position();
    int n = reader.scan(rest.asReadOnlyBuffer());
    check(n >= 0 && n <= rest.remaining(), input, "a body of " + n + " in " + rest.remaining());
    check(rest.position() == before, input, "the body reader moved the position");
    check(
        reader.refusal() == null || (reader.refusal().status() == status && !reader.finished()),
        input,
        "refusal " + reader.refusal());
    check(
        reader.refusal() != null || reader.finished() || n == rest.remaining(),
        input,
        "stopped early");
  }

  static void check(boolean ok, byte[] input, String what) {
    if (!ok) {
      throw new AssertionError(describe(input) + ": " + what);
    }
  }

  static String describe(byte[] input) {
    return input.length
        + " B: "
        + HexFormat.of().formatHex(input, 0, Math.min(input.length, 256))
        + (input.length > 256 ? "..." : "");
  }
}
