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
 * The first stage of a listener that expects PROXY protocol headers: reads the header, records it
 * on the pair (whose client address is then the header's source), and hands the connection to the
 * next stage with the bytes after the header, which are the client's own (a ClientHello, a request)
 * even when they came in the same read. A malformed header, none in time, or a peer that closes
 * first ends that connection alone, with its cause and reason.
 */
public final class ProxyHeaderDetector implements Detector {
  private final Pair pair;
  private final ProxyHeaderParser parser;
  private final Duration timeout;
  private final ConnectionHandler next;

  /**
   * @param timeout the time allowed, for the reason given when it runs out
   * @param next the stage after the header (address limits, TLS, the ClientHello, the pair)
   */
  public ProxyHeaderDetector(
      Pair pair, ProxyHeaderParser parser, Duration timeout, ConnectionHandler next) {
    this.pair = pair;
    this.parser = parser;
    this.timeout = timeout;
    this.next = next;
  }

  @Override
  public Detection detect(Connection connection, ByteBuffer prefix) {
    return switch (parser.parse(prefix)) {
      case NeedMore more -> Detection.NEED_MORE;
      case Parsed parsed -> {
        pair.proxyHeader(parsed.header());
        yield Detection.handOver(next, parsed.length());
      }
      case Invalid invalid -> refuse(CloseCause.PROXY_PROTOCOL_INVALID, invalid.reason());
    };
  }

  @Override
  public Detection onTimeout(Connection connection, ByteBuffer prefix) {
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
    return refuse(
        CloseCause.PROXY_PROTOCOL_INVALID,
        "the peer closed after "
            + prefix.remaining()
            + " B, before a complete PROXY protocol header");
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
