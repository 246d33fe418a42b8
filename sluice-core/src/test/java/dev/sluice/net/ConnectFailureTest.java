package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Transport;
import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A connect that fails says which address and why; the handler hears nothing of it. */
class ConnectFailureTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aRefusedConnectNamesTheAddress(Transport transport) throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
        RefusingAddress refusing = RefusingAddress.of(transport, dir)) {
      RecordingHandler handler = new RecordingHandler();
      Throwable failure =
          Await.failure(
              group.connect(refusing.address(), SocketOptions.defaults(), handler), "connect");
      assertThat(failure)
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("connect to " + refusing.address())
          .hasMessageContaining("refused");
      assertThat(handler.active()).isNotDone();
      assertThat(handler.closed()).isNotDone();
    }
  }

  /**
   * TCP only (a Unix-domain connect completes or fails at once). A listener that never accepts,
   * with a backlog of 1 filled by connections that completed: Linux then drops further SYNs, so a
   * connect stays pending, deterministically and without any traffic leaving the machine.
   */
  @Test
  void aConnectThatDoesNotCompleteInTimeFailsWithConnectTimeout() throws Exception {
    List<Socket> fillers = new ArrayList<>();
    try (ServerSocketChannel neverAccepts = ServerSocketChannel.open();
        EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      neverAccepts.bind(new InetSocketAddress("127.0.0.1", 0), 1);
      SocketAddress address = neverAccepts.getLocalAddress();
      fillAcceptQueue(address, fillers);

      RecordingHandler handler = new RecordingHandler();
      SocketOptions options = SocketOptions.defaults().withConnectTimeout(Duration.ofMillis(300));
      Throwable failure = Await.failure(group.connect(address, options, handler), "connect");
      assertThat(failure)
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("connect to " + address)
          .hasMessageContaining("timed out after 300 ms")
          .hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(handler.active()).isNotDone();
      assertThat(handler.closed()).isNotDone();
    } finally {
      for (Socket filler : fillers) {
        filler.close();
      }
    }
  }

  /** Connects until a connect cannot complete: the listener's accept queue is then full. */
  private static void fillAcceptQueue(SocketAddress address, List<Socket> fillers)
      throws IOException {
    for (int i = 0; i < 16; i++) {
      Socket filler = new Socket();
      try {
        filler.connect(address, 500);
        fillers.add(filler);
      } catch (SocketTimeoutException full) {
        filler.close();
        return;
      }
    }
    throw new AssertionError("the accept queue never filled; cannot provoke a connect timeout");
  }

  /** An address where nothing listens, held so that nothing else can start listening there. */
  private record RefusingAddress(SocketAddress address, Closeable holder) implements Closeable {
    static RefusingAddress of(Transport transport, Path dir) throws IOException {
      if (transport == Transport.TCP) {
        // Bound but not listening: a SYN to it is answered with RST.
        SocketChannel bound = SocketChannel.open();
        bound.bind(new InetSocketAddress("127.0.0.1", 0));
        return new RefusingAddress(bound.getLocalAddress(), bound);
      }
      // A socket file whose listener is gone: connect is refused.
      SocketAddress address = transport.bindAddress(dir);
      try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
        gone.bind(address);
      }
      return new RefusingAddress(address, () -> {});
    }

    @Override
    public void close() throws IOException {
      holder.close();
    }
  }
}
