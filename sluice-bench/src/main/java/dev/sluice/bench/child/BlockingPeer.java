package dev.sluice.bench.child;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The shape of every peer: plain blocking JDK sockets, one thread per connection, identical in
 * every arm. It listens on loopback, reports {@code LISTENING port=N}, serves each connection with
 * {@link #serve} and ends when the harness says EXIT.
 */
public abstract class BlockingPeer implements ChildProgram {

  @Override
  public final void run(ChildControl control) throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 64);
      control.send("LISTENING", "port", ((InetSocketAddress) server.getLocalAddress()).getPort());
      Thread acceptor =
          Thread.ofPlatform()
              .name("peer-accept")
              .daemon(true)
              .start(() -> acceptLoop(server, control));
      control.await("EXIT");
      acceptor.interrupt();
    }
  }

  private void acceptLoop(ServerSocketChannel server, ChildControl control) {
    int index = 0;
    while (server.isOpen()) {
      SocketChannel channel;
      try {
        channel = server.accept();
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      } catch (IOException e) {
        return; // closed at EXIT
      }
      int connection = index++;
      Thread.ofPlatform()
          .name("peer-conn-" + connection)
          .daemon(true)
          .start(() -> serveAndClose(channel, connection, control));
    }
  }

  private void serveAndClose(SocketChannel channel, int connection, ChildControl control) {
    try (channel) {
      serve(channel, connection, control);
    } catch (IOException e) {
      // A measured side that closes early (e.g. after a failure it reports itself) is not the
      // peer's error; log it for the stderr tail the harness shows on failure.
      System.err.println("peer connection " + connection + ": " + e);
    }
  }

  /**
   * Serves one accepted connection, blocking; the channel is closed afterwards.
   *
   * @param connection the connection's index in accept order (0 first)
   * @param control to report to the harness, from this thread
   */
  protected abstract void serve(SocketChannel channel, int connection, ChildControl control)
      throws IOException;
}
