package dev.sluice.proxy.proxyprotocol;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.ByteAccount;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.DetectingHandler;
import dev.sluice.proxy.config.Cidr;
import dev.sluice.proxy.config.ListenerProxyProtocol;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderDetector.Expectation;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * What a listener with PROXY protocol headers runs first for each connection: the peer is judged
 * against the trusted sources before a byte is read (refused at once when the header is required),
 * then the header is read ({@link ProxyHeaderDetector}), then {@code next} runs for the original
 * client. One per listener configuration: the parser is shared by its connections (it holds no
 * state of its own).
 */
public final class ProxyProtocolStage {
  private final ListenerProxyProtocol settings;
  private final ProxyHeaderParser parser;

  public ProxyProtocolStage(ListenerProxyProtocol settings) {
    this.settings = settings;
    this.parser = new ProxyHeaderParser(settings.versions(), settings.maxHeaderBytes());
  }

  /**
   * The first handler of a connection to the listener, {@code next} the one after the header; the
   * bytes held until the header is complete are charged to {@code held}.
   */
  public ConnectionHandler first(Pair pair, ConnectionHandler next, ByteAccount held) {
    return new TrustCheck(pair, this, next, held);
  }

  private ConnectionHandler header(
      Pair pair, Expectation expectation, ConnectionHandler next, ByteAccount held) {
    return new DetectingHandler(
        new ProxyHeaderDetector(pair, parser, settings.timeout(), expectation, next),
        parser.maxBytes(),
        settings.timeout(),
        held);
  }

  /** Whether {@code peer} may send headers: in a trusted network, or on a Unix socket. */
  static boolean trusted(SocketAddress peer, List<Cidr> networks) {
    if (!(peer instanceof InetSocketAddress inet)) {
      return true; // a Unix socket: its file's permissions say who may connect
    }
    if (inet.getAddress() == null) {
      return false;
    }
    for (Cidr network : networks) {
      if (network.contains(inet.getAddress())) {
        return true;
      }
    }
    return false;
  }

  private record TrustCheck(
      Pair pair, ProxyProtocolStage stage, ConnectionHandler next, ByteAccount held)
      implements ConnectionHandler {
    @Override
    public void onActive(Connection connection) {
      SocketAddress peer = connection.remoteAddress();
      pair.facts().peerAddress(peer);
      boolean optional = stage.settings.optional();
      if (trusted(peer, stage.settings.trustedSources())) {
        Expectation expectation = optional ? Expectation.OPTIONAL : Expectation.REQUIRED;
        connection.switchHandler(stage.header(pair, expectation, next, held));
      } else if (optional) {
        connection.switchHandler(stage.header(pair, Expectation.REFUSED, next, held));
      } else {
        String detail = peer + " is not a trusted source of PROXY protocol headers";
        pair.refused(CloseCause.PROXY_PROTOCOL_UNTRUSTED, detail);
        connection.close(
            new CloseReason.Rejected(CloseCause.PROXY_PROTOCOL_UNTRUSTED.label(), detail));
      }
    }

    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      // Never: the handler is switched (or the connection closed) before the first read.
    }
  }
}
