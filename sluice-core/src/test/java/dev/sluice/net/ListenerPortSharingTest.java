package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * On epoll a TCP listener is one SO_REUSEPORT socket per loop; that must not let it share a port it
 * did not ask to share, and its connections must still reach every loop.
 */
class ListenerPortSharingTest {

  @Test
  void aPortInUseIsRefusedUnlessBothAskToShareIt() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      Listener first =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              RecordingHandler::new);
      SocketAddress taken = first.localAddress();
      assertThatThrownBy(() -> group.listen(taken, SocketOptions.defaults(), RecordingHandler::new))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cannot listen on")
          .hasMessageContaining("Address already in use");
      first.close();

      SocketOptions sharing = SocketOptions.defaults().withReusePort(true);
      try (Listener a =
              group.listen(new InetSocketAddress("127.0.0.1", 0), sharing, RecordingHandler::new);
          Listener b = group.listen(a.localAddress(), sharing, RecordingHandler::new)) {
        assertThat(b.localAddress()).isEqualTo(a.localAddress());
        assertThatThrownBy(
                () ->
                    group.listen(a.localAddress(), SocketOptions.defaults(), RecordingHandler::new))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("Address already in use");
      }
    }
  }

  @Test
  void connectionsReachEveryLoop() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2));
        Listener listener =
            group.listen(
                new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), servers)) {
      Set<EventLoop> loops = new HashSet<>();
      for (int i = 0; i < 40; i++) {
        try (Socket client = new Socket()) {
          client.connect(listener.localAddress());
          RecordingHandler server = servers.next();
          loops.add(Await.result(server.active(), "accepted").loop());
        }
      }
      // The kernel hashes connections over the loops' sockets: 40 on one loop is a 2^-39 chance.
      assertThat(loops).hasSize(2);
    }
  }
}
