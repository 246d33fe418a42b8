package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * Both ends of a connection name the same two addresses, on either transport: an accepted socket's
 * local address is the listener's when it is bound to one address and the kernel's when it is a
 * wildcard, and a connected socket's local address is the port connect picked (kept packed on
 * epoll, so read back here).
 */
class ConnectionAddressesTest {

  @Test
  void bothEndsAgreeOnAListenerBoundToOneAddress() throws Exception {
    bothEndsAgree(new InetSocketAddress("127.0.0.1", 0));
  }

  @Test
  void anAcceptedSocketOfAWildcardListenerNamesTheAddressItWasReachedOn() throws Exception {
    InetSocketAddress local = bothEndsAgree(new InetSocketAddress(0));
    assertThat(local.getAddress().isAnyLocalAddress()).isFalse();
    assertThat(local.getAddress().isLoopbackAddress()).isTrue();
  }

  /** Returns the accepted socket's local address, read while it is open. */
  private static InetSocketAddress bothEndsAgree(InetSocketAddress bind) throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
        Listener listener = group.listen(bind, SocketOptions.defaults(), servers)) {
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
      Connection client =
          Await.result(
              group.connect(target, SocketOptions.defaults(), new RecordingHandler()), "connect");
      Connection server = Await.result(servers.next().active(), "accepted");

      InetSocketAddress clientLocal = (InetSocketAddress) client.localAddress();
      assertThat(clientLocal.getPort()).isPositive();
      assertThat(clientLocal).isEqualTo(server.remoteAddress());
      assertThat(server.localAddress()).isEqualTo(target).isEqualTo(client.remoteAddress());
      InetSocketAddress serverLocal = (InetSocketAddress) server.localAddress();
      client.close();
      return serverLocal;
    }
  }
}
