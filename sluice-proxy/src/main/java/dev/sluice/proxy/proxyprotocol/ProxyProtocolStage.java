package dev.sluice.proxy.proxyprotocol;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.DetectingHandler;
import dev.sluice.proxy.config.Cidr;
import dev.sluice.proxy.config.ListenerProxyProtocol;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;

/**
 * What a listener with PROXY protocol headers runs first for each connection: the peer must be a
 * trusted source (judged before a byte is read), then the header is read ({@link
 * ProxyHeaderDetector}), then {@code next} runs for the original client.
 */
public final class ProxyProtocolStage {
  private ProxyProtocolStage() {}

  /** The first handler of a connection to a listener configured with {@code settings}. */
  public static ConnectionHandler first(
      Pair pair, ListenerProxyProtocol settings, ConnectionHandler next) {
    ProxyHeaderParser parser =
        new ProxyHeaderParser(settings.versions(), settings.maxHeaderBytes());
    DetectingHandler header =
        new DetectingHandler(
            new ProxyHeaderDetector(pair, parser, settings.timeout(), next),
            parser.maxBytes(),
            settings.timeout());
    return new TrustCheck(pair, settings.trustedSources(), header);
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

  private record TrustCheck(Pair pair, List<Cidr> trustedSources, ConnectionHandler next)
      implements ConnectionHandler {
    @Override
    public void onActive(Connection connection) {
      SocketAddress peer = connection.remoteAddress();
      pair.peerAddress(peer);
      if (!trusted(peer, trustedSources)) {
        String detail = peer + " is not a trusted source of PROXY protocol headers";
        pair.refused(CloseCause.PROXY_PROTOCOL_UNTRUSTED, detail);
        connection.close(
            new CloseReason.Rejected(CloseCause.PROXY_PROTOCOL_UNTRUSTED.label(), detail));
        return;
      }
      connection.switchHandler(next);
    }

    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      // Never: the handler is switched (or the connection closed) before the first read.
    }
  }
}
