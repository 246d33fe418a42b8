package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An upstream the test drives by hand: it accepts on loopback (on a virtual thread) and hands each
 * accepted socket to the test, which reads, writes, half-closes or resets it as the case needs.
 */
public final class ScriptedUpstream implements AutoCloseable {
  private final ServerSocket server;
  private final BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();

  private ScriptedUpstream(int receiveBuffer) throws IOException {
    server = new ServerSocket();
    if (receiveBuffer > 0) {
      server.setReceiveBufferSize(receiveBuffer);
    }
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    Thread.ofVirtual()
        .start(
            () -> {
              while (!server.isClosed()) {
                try {
                  accepted.add(server.accept());
                } catch (IOException closed) {
                  return;
                }
              }
            });
  }

  public static ScriptedUpstream start() throws IOException {
    return new ScriptedUpstream(0);
  }

  /** With a small receive buffer, so that a slow reader here holds little in the kernel. */
  public static ScriptedUpstream withReceiveBuffer(int bytes) throws IOException {
    return new ScriptedUpstream(bytes);
  }

  /** {@code 127.0.0.1:PORT}, for a cluster's address. */
  public String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** The next connection the proxy made. */
  public Socket next() throws InterruptedException {
    Socket socket = accepted.poll(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    if (socket == null) {
      throw new AssertionError("the proxy never connected to the upstream");
    }
    return socket;
  }

  /** Connections accepted and not yet taken by the test. */
  public int waiting() {
    return accepted.size();
  }

  @Override
  public void close() throws IOException {
    server.close();
    Socket s;
    while ((s = accepted.poll()) != null) {
      s.close();
    }
  }
}
