package dev.sluice.bench.tls;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import java.io.IOException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * The TLS form of {@link dev.sluice.bench.child.BlockingPeer}: a plain blocking JDK {@code
 * SSLServerSocket} on loopback, one thread per connection, identical in every arm. It reports
 * {@code LISTENING port=N}, serves each connection with {@link #serve} and ends at EXIT.
 */
public abstract class TlsBlockingPeer implements ChildProgram {

  @Override
  public final void run(ChildControl control) throws Exception {
    BenchTls tls = BenchTls.from(control.params());
    try (SSLServerSocket server = tls.peerServerSocket(64)) {
      control.send("LISTENING", "port", server.getLocalPort());
      Thread acceptor =
          Thread.ofPlatform()
              .name("peer-accept")
              .daemon(true)
              .start(() -> acceptLoop(server, control));
      control.await("EXIT");
      acceptor.interrupt();
    }
  }

  private void acceptLoop(SSLServerSocket server, ChildControl control) {
    int index = 0;
    while (!server.isClosed()) {
      SSLSocket socket;
      try {
        socket = (SSLSocket) server.accept();
        socket.setTcpNoDelay(true);
      } catch (IOException e) {
        return; // closed at EXIT
      }
      int connection = index++;
      Thread.ofPlatform()
          .name("peer-conn-" + connection)
          .daemon(true)
          .start(() -> serveAndClose(socket, connection, control));
    }
  }

  private void serveAndClose(SSLSocket socket, int connection, ChildControl control) {
    try (socket) {
      serve(socket, connection, control);
    } catch (IOException e) {
      // The measured side reports its own failures; this goes to the stderr tail it shows.
      System.err.println("peer connection " + connection + ": " + e);
    }
  }

  /**
   * Serves one accepted connection, blocking; the socket is closed afterwards.
   *
   * @param connection the connection's index in accept order (0 first)
   */
  protected abstract void serve(SSLSocket socket, int connection, ChildControl control)
      throws IOException;
}
