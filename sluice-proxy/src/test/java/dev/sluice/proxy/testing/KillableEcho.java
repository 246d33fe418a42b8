package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An echo upstream on a fixed address that the test can kill (every connection reset, the port
 * closed, as when a process dies mid-write) and start again on the same address.
 */
public final class KillableEcho implements AutoCloseable {
  private final InetSocketAddress address;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile ServerSocket server;
  private Thread acceptor;

  private KillableEcho(InetSocketAddress address) throws IOException {
    this.address = address;
    start();
  }

  /** On a free port of {@code ip} (a loopback address). */
  public static KillableEcho on(String ip) throws IOException {
    return on(ip, 0);
  }

  /** On {@code ip:port}. */
  public static KillableEcho on(String ip, int port) throws IOException {
    return new KillableEcho(new InetSocketAddress(InetAddress.getByName(ip), port));
  }

  private InetSocketAddress bound;

  public synchronized void start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(bound != null ? bound : address, 256);
    bound = (InetSocketAddress) s.getLocalSocketAddress();
    server = s;
    acceptor =
        Thread.ofVirtual()
            .start(
                () -> {
                  while (!s.isClosed()) {
                    try {
                      Socket c = s.accept();
                      accepted.incrementAndGet();
                      open.add(c);
                      Thread.ofVirtual().start(() -> echo(c));
                    } catch (IOException closed) {
                      return;
                    }
                  }
                });
  }

  private void echo(Socket c) {
    try (c;
        InputStream in = c.getInputStream();
        OutputStream out = c.getOutputStream()) {
      byte[] buffer = new byte[16 * 1024];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (IOException ended) {
      // reset or killed
    } finally {
      open.remove(c);
    }
  }

  /**
   * Resets every connection and closes the port. The JDK closes a listening socket that a thread is
   * accepting on only once that thread has left accept: until then connects still succeed (and are
   * reset), so this waits for it.
   */
  public synchronized void kill() throws IOException {
    server.close();
    try {
      acceptor.join(Await.PATIENCE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for the port to close", e);
    }
    for (Socket c : open) {
      try {
        c.setSoLinger(true, 0);
        c.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  /** {@code ip:port}, for a cluster's address. */
  public String address() {
    return bound.getAddress().getHostAddress() + ":" + bound.getPort();
  }

  public int port() {
    return bound.getPort();
  }

  /** Connections accepted so far (over every start). */
  public int accepted() {
    return accepted.get();
  }

  @Override
  public void close() throws IOException {
    kill();
  }
}
