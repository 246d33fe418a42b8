package dev.sluice.proxy.proxyprotocol;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.Detection;
import dev.sluice.net.Detector;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Invalid;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.NeedMore;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Parsed;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The first stage of a listener that takes PROXY protocol headers: reads the header, records it on
 * the pair (whose client address is then the header's source), and hands the connection to the next
 * stage with the bytes after the header, which are the client's own (a ClientHello, a request) even
 * when they came in the same read. A malformed header, none in time, or a peer that closes first
 * ends that connection alone, with its cause and reason.
 */
public final class ProxyHeaderDetector implements Detector {

  /** What this connection's peer may send. */
  public enum Expectation {
    /** A trusted source on a listener where the header is required: it must send one. */
    REQUIRED,
    /** A trusted source on a listener where the header is optional: it may send one. */
    OPTIONAL,
    /**
     * A peer that is not trusted, on a listener that takes direct clients: it connects as itself,
     * and a header from it is refused.
     */
    REFUSED
  }

  private final Pair pair;
  private final ProxyHeaderParser parser;
  private final Duration timeout;
  private final Expectation expectation;
  private final ConnectionHandler next;

  /**
   * @param timeout the time allowed, for the reason given when it runs out
   * @param next the stage after the header (address limits, TLS, the ClientHello, the pair)
   */
  public ProxyHeaderDetector(
      Pair pair,
      ProxyHeaderParser parser,
      Duration timeout,
      Expectation expectation,
      ConnectionHandler next) {
    this.pair = pair;
    this.parser = parser;
    this.timeout = timeout;
    this.expectation = expectation;
    this.next = next;
  }

  @Override
  public Detection detect(Connection connection, ByteBuffer prefix) {
    if (expectation != Expectation.REQUIRED) {
      switch (ProxyHeaderParser.signature(prefix)) {
        case ABSENT -> {
          return Detection.handOver(next); // a direct client: its bytes pass on untouched
        }
        case UNDECIDED -> {
          return Detection.NEED_MORE;
        }
        case PRESENT -> {
          if (expectation == Expectation.REFUSED) {
            return refuse(
                CloseCause.PROXY_PROTOCOL_UNTRUSTED,
                pair.facts().peerAddress()
                    + " sent a PROXY protocol header and is not a trusted source");
          }
        }
      }
    }
    return switch (parser.parse(prefix)) {
      case NeedMore more -> Detection.NEED_MORE;
      case Parsed parsed -> {
        pair.facts().proxyHeader(parsed.header());
        yield Detection.handOver(next, parsed.length());
      }
      case Invalid invalid -> refuse(CloseCause.PROXY_PROTOCOL_INVALID, invalid.reason());
    };
  }

  @Override
  public Detection onTimeout(Connection connection, ByteBuffer prefix) {
    if (mayGoOnWithout(prefix)) {
      // Nothing that could be a header arrived: a direct client of a protocol in which the
      // server speaks first. It goes on as itself.
      return Detection.handOver(next);
    }
    return refuse(
        CloseCause.PROXY_PROTOCOL_TIMEOUT,
        "no complete PROXY protocol header within "
            + timeout.toMillis()
            + " ms ("
            + prefix.remaining()
            + " B received)");
  }

  @Override
  public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
    if (mayGoOnWithout(prefix)) {
      return Detection.handOver(next); // the next stage sees the end of input as the client's
    }
    return refuse(
        CloseCause.PROXY_PROTOCOL_INVALID,
        "the peer closed after "
            + prefix.remaining()
            + " B, before a complete PROXY protocol header");
  }

  /**
   * Whether a connection may go on without a header having come: from a peer that is not trusted
   * (what it sent so far is no whole signature), or from a trusted one that may omit it and sent
   * nothing at all.
   */
  private boolean mayGoOnWithout(ByteBuffer prefix) {
    return switch (expectation) {
      case REQUIRED -> false;
      case OPTIONAL -> !prefix.hasRemaining();
      case REFUSED -> true;
    };
  }

  @Override
  public Detection onLimit(Connection connection, ByteBuffer prefix) {
    // The parser refuses a header longer than the limit before this is reached; kept for safety.
    return refuse(
        CloseCause.PROXY_PROTOCOL_INVALID,
        "no complete PROXY protocol header within " + prefix.remaining() + " B");
  }

  @Override
  public void onClosed(Connection connection, CloseReason reason) {
    pair.refused(
        switch (reason) {
          case CloseReason.PeerReset r -> CloseCause.CLIENT_RESET;
          case CloseReason.Shutdown s -> CloseCause.SHUTDOWN;
          default -> CloseCause.PROXY_PROTOCOL_INVALID;
        },
        "closed before a PROXY protocol header: " + reason.label());
  }

  private Detection refuse(CloseCause cause, String reason) {
    pair.refused(cause, reason);
    return Detection.reject(cause.label(), reason);
  }
}
