package dev.sluice.proxy.testing;

import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.ProxyRuntime;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A proxy started from YAML text for one test, with a record of every pair that ended. */
public final class ProxyFixture implements AutoCloseable {
  private final List<Pair> closed;
  private final ProxyRuntime proxy;

  private ProxyFixture(List<Pair> closed, ProxyRuntime proxy) {
    this.closed = closed;
    this.proxy = proxy;
  }

  /** Reads {@code yaml} (relative paths against {@code dir}) and starts a proxy of two loops. */
  public static ProxyFixture start(String yaml, Path dir) throws Exception {
    return start(yaml, dir, 2);
  }

  /** Like {@link #start(String, Path)}, with {@code loops} event loops. */
  public static ProxyFixture start(String yaml, Path dir, int loops) throws Exception {
    ProxyConfig config = ConfigReader.read(yaml, "test.yaml", dir);
    List<Pair> closed = new CopyOnWriteArrayList<>();
    return new ProxyFixture(
        closed, ProxyRuntime.start(config, (l, pair) -> closed.add(pair), loops));
  }

  public ProxyRuntime runtime() {
    return proxy;
  }

  /** Where the listener of that name is bound. */
  public SocketAddress address(String listener) {
    return proxy.listener(listener).boundAddress();
  }

  public ListenerRuntime listener(String name) {
    return proxy.listener(name);
  }

  /** The running target of {@code cluster} for {@code address} (as the cluster names it). */
  public UpstreamTarget upstream(String cluster, String address) {
    return proxy.clusters().get(cluster).upstreams().stream()
        .filter(u -> u.name().equals(address))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no upstream " + address + " in cluster " + cluster));
  }

  /**
   * Opens a client connection to {@code listener}, sends one byte and checks it comes back (an echo
   * upstream behind it); returns the connection, still open.
   */
  public Socket echoOnce(String listener, int b) throws IOException {
    InetSocketAddress at = (InetSocketAddress) address(listener);
    Socket s = new Socket(at.getAddress(), at.getPort());
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    s.getOutputStream().write(b);
    int back = s.getInputStream().read();
    if (back != b) {
      s.close();
      throw new AssertionError("sent " + b + " through " + listener + ", got " + back);
    }
    return s;
  }

  /** The pairs that ended so far. */
  public List<Pair> closedPairs() {
    return List.copyOf(closed);
  }

  /** Waits until {@code count} pairs have ended, and returns them. */
  public List<Pair> awaitClosed(int count) {
    Await.until(
        () -> closed.size() >= count,
        () -> closed.size() + " of " + count + " pairs ended: " + closed);
    return closedPairs();
  }

  @Override
  public void close() {
    proxy.shutdown(Duration.ZERO);
  }
}
