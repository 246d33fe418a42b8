package dev.sluice.bench.proxy;

import dev.sluice.bench.child.BlockingIo;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.integrity.Corruption;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The echo upstream of the proxy workloads, the same in every arm: a plain blocking JDK server that
 * echoes every byte back as soon as it arrives, until the proxy closes the connection. One virtual
 * thread per connection (blocking code, no OS thread per parked connection: thousands of pairs
 * park) with a 32 KiB direct buffer. With {@code --corrupt-at N} it flips the byte at offset N of
 * every connection's stream, so the load client must report an integrity failure.
 */
public final class EchoUpstream implements ChildProgram {
  /** The param holding the port to listen on (the harness picks it, to start all at once). */
  public static final String PORT = "upstreamPort";

  private static final int BUFFER = 32 * 1024;
  private static final int ERRORS_LOGGED = 10;

  private final AtomicInteger errors = new AtomicInteger();

  @Override
  public void run(ChildControl control) throws Exception {
    Corruption corruption = Corruption.from(control.params());
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(
          new InetSocketAddress("127.0.0.1", Integer.parseInt(control.params().string(PORT))),
          4096);
      control.send("LISTENING", "port", ((InetSocketAddress) server.getLocalAddress()).getPort());
      Thread.ofPlatform()
          .name("upstream-accept")
          .daemon(true)
          .start(
              () -> {
                while (server.isOpen()) {
                  SocketChannel channel;
                  try {
                    channel = server.accept();
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                  } catch (IOException e) {
                    return; // closed at EXIT
                  }
                  Thread.ofVirtual().start(() -> echo(channel, corruption));
                }
              });
      control.await("EXIT");
    }
  }

  private void echo(SocketChannel channel, Corruption corruption) {
    try (channel) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
      long offset = 0;
      while (channel.read(buffer.clear()) >= 0) {
        buffer.flip();
        corruption.apply(buffer, offset);
        offset += buffer.remaining();
        BlockingIo.writeFully(channel, buffer);
      }
    } catch (IOException e) {
      // A proxy may reset a connection it closes; the load client judges the run.
      if (errors.incrementAndGet() <= ERRORS_LOGGED) {
        System.err.println("upstream connection: " + e);
      }
    }
  }
}
