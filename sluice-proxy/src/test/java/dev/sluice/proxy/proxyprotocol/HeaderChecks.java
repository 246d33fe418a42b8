package dev.sluice.proxy.proxyprotocol;

import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Invalid;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.NeedMore;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Parsed;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Result;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What must hold for any input to the parser, whatever its bytes: used by the seeded mutation test
 * and by the fuzz test. Throws {@link AssertionError} naming the input.
 */
final class HeaderChecks {
  private HeaderChecks() {}

  /** Parses {@code input} (at an offset, to check the parser reads from the buffer's position). */
  static Result parse(ProxyHeaderParser parser, byte[] input) {
    ByteBuffer buffer = ByteBuffer.allocate(input.length + 3);
    buffer.position(3);
    buffer.put(input);
    buffer.position(3);
    Result result;
    try {
      result = parser.parse(buffer.asReadOnlyBuffer());
    } catch (RuntimeException | Error e) {
      throw new AssertionError(describe(input) + " threw " + e, e);
    }
    check(result != null, input, "a null result");
    return result;
  }

  /**
   * Every invariant: no exception; NeedMore only below the most a header may take; a reason for
   * every refusal; a parsed header no longer than the input, the same when anything follows it,
   * undecided when cut short, and re-encoded to bytes that parse to it again; a prefix decided only
   * as the whole was; the signature check agreeing with all of it.
   */
  static Result checkAll(ProxyHeaderParser parser, byte[] input, int cut) {
    Result result = parse(parser, input);
    switch (result) {
      case NeedMore _ ->
          check(input.length < parser.maxBytes(), input, "NeedMore at or above maxBytes");
      case Invalid v -> check(!v.reason().isBlank(), input, "a refusal without a reason");
      case Parsed p -> {
        check(p.length() > 0 && p.length() <= input.length, input, "length " + p.length());
        byte[] header = Arrays.copyOf(input, p.length());
        byte[] longer = Arrays.copyOf(input, input.length + 5);
        check(parse(parser, longer).equals(result), input, "bytes after it changed the header");
        Result exact = parse(parser, header);
        check(exact.equals(result), input, "the header alone parsed as " + exact);
        if (p.length() > 1) {
          Result shorter = parse(parser, Arrays.copyOf(header, p.length() - 1));
          check(shorter instanceof NeedMore, input, "one byte short: " + shorter);
        }
        byte[] again = ProxyHeaderEncoder.encode(p.header());
        Result reparsed = parse(parser, again);
        check(
            reparsed instanceof Parsed q && q.header().equals(p.header()),
            input,
            "re-encoded " + HexFormat.of().formatHex(again) + " parsed as " + reparsed);
      }
    }
    // What a listener with optional headers decides on (a header or a direct client's bytes)
    // agrees with the parser: no header without its signature, nothing undecided it has decided.
    switch (ProxyHeaderParser.signature(java.nio.ByteBuffer.wrap(input))) {
      case ABSENT ->
          check(
              result instanceof Invalid v && v.reason().startsWith("not a PROXY protocol header"),
              input,
              "no signature, yet " + result);
      case UNDECIDED -> check(result instanceof NeedMore, input, "half a signature: " + result);
      case PRESENT -> {}
    }
    int at = Math.floorMod(cut, input.length + 1);
    Result prefix = parse(parser, Arrays.copyOf(input, at));
    switch (prefix) {
      case NeedMore _ -> {}
      case Parsed p ->
          check(prefix.equals(result), input, "cut at " + at + ": " + p + ", whole: " + result);
      case Invalid v ->
          check(result instanceof Invalid, input, "cut at " + at + ": " + v + ", whole: " + result);
    }
    return result;
  }

  static void check(boolean ok, byte[] input, String what) {
    if (!ok) {
      throw new AssertionError(describe(input) + ": " + what);
    }
  }

  static String describe(byte[] input) {
    return input.length
        + " B: "
        + HexFormat.of().formatHex(input, 0, Math.min(input.length, 128))
        + (input.length > 128 ? "..." : "");
  }
}
