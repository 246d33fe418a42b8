package dev.sluice.proxy.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * An upstream on loopback that never answers: one whose SYNs are dropped (a connect to it times
 * out, as to a host behind a firewall that drops), or one that completes the TCP handshake and then
 * says nothing (a TLS handshake with it times out). Neither ever accepts a connection.
 */
public final class UnresponsiveUpstream implements AutoCloseable {
  private final ServerSocket server;
  private final List<Socket> fillers = new ArrayList<>();

  private UnresponsiveUpstream(int backlog) throws IOException {
    server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), backlog);
  }

  /**
   * A listener whose accept queue is full: Linux drops the SYNs that find it so (with {@code
   * tcp_abort_on_overflow} off, its default), so further connects time out. The queue is filled
   * with connections that are never accepted, until a connect times out, which proves it.
   */
  public static UnresponsiveUpstream droppingSyns() throws IOException {
    UnresponsiveUpstream u = new UnresponsiveUpstream(1);
    for (int i = 0; i < 16; i++) {
      Socket s = new Socket();
      try {
        s.connect(u.server.getLocalSocketAddress(), 200);
        u.fillers.add(s);
      } catch (SocketTimeoutException full) {
        s.close();
        return u;
      }
    }
    u.close();
    throw new AssertionError("connects to a full accept queue did not time out");
  }

  /** A listener that completes connections (the kernel does) but never reads or writes. */
  public static UnresponsiveUpstream silent() throws IOException {
    return new UnresponsiveUpstream(64);
  }

  /** {@code 127.0.0.1:PORT}, for a cluster's address. */
  public String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    for (Socket s : fillers) {
      s.close();
    }
    server.close();
  }
}
