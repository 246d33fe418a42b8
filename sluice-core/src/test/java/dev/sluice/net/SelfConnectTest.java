package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.FreePorts;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TCP connect to a port of this host where nothing listens can be given that port as its own
 * source, and then meets itself (a simultaneous open): the kernel reports it connected, to itself.
 * Left so, a proxy's upstream connection would echo the client's bytes back to it. Each transport's
 * socket refuses it instead. The kernel's pick of a source port is made certain here by binding the
 * socket to the port it then connects to: the same connection, every time.
 */
class SelfConnectTest {
  @Test
  @Timeout(60)
  void anEpollSocketThatMeetsItselfIsRefused() throws IOException {
    InetSocketAddress target = freeLoopbackAddress();
    EpollPoller poller = new EpollPoller();
    try {
      EpollStreamSocket socket = (EpollStreamSocket) poller.openStream(target);
      try {
        int length = SockAddr.encode(target, poller.scratch.sockaddr);
        if (Libc.bind(poller.scratch.errno, socket.fd(), poller.scratch.sockaddrAddress, length)
            < 0) {
          throw Libc.error("bind", poller.scratch.errno());
        }
        assertRefusedAsSelfConnect(socket, target);
      } finally {
        socket.close();
      }
    } finally {
      poller.close();
    }
  }

  @Test
  @Timeout(60)
  void aNioSocketThatMeetsItselfIsRefused() throws IOException {
    InetSocketAddress target = freeLoopbackAddress();
    try (SocketChannel channel = SocketChannel.open()) {
      channel.bind(target);
      channel.configureBlocking(false);
      assertRefusedAsSelfConnect(new NioStreamSocket(channel), target);
    }
  }

  /** A port below the ephemeral range: no connect elsewhere takes it meanwhile. */
  private static InetSocketAddress freeLoopbackAddress() throws IOException {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), FreePorts.loopback());
  }

  private static void assertRefusedAsSelfConnect(StreamSocket socket, InetSocketAddress target) {
    assertThatThrownBy(() -> connectFully(socket, target))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("refused")
        .hasMessageContaining("connected to itself at " + target);
  }

  /** Connects and waits out a connect in progress, as a loop would on its readiness. */
  private static void connectFully(StreamSocket socket, InetSocketAddress target)
      throws IOException, InterruptedException {
    if (socket.connect(target)) {
      return;
    }
    while (!socket.finishConnect()) {
      Thread.sleep(1);
    }
  }
}
