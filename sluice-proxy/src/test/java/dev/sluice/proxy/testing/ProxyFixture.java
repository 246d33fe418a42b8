package dev.sluice.proxy.testing;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.ProxyRuntime;
import dev.sluice.testing.Await;
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
    ProxyConfig config = ConfigReader.read(yaml, "test.yaml", dir);
    List<Pair> closed = new CopyOnWriteArrayList<>();
    return new ProxyFixture(closed, ProxyRuntime.start(config, (l, pair) -> closed.add(pair), 2));
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
