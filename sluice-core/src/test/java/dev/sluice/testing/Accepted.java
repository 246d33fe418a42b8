package dev.sluice.testing;

import dev.sluice.net.ConnectionHandler;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A listener's handler factory that remembers every handler it made, so a test can reach the server
 * side of the connections it opened, in accept order.
 */
public final class Accepted<H extends ConnectionHandler> implements Supplier<H> {
  private final Supplier<H> factory;
  private final LinkedBlockingQueue<H> unclaimed = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<H> all = new LinkedBlockingQueue<>();

  /** Makes handlers with {@code factory}. */
  public Accepted(Supplier<H> factory) {
    this.factory = factory;
  }

  @Override
  public H get() {
    H handler = factory.get();
    all.add(handler);
    unclaimed.add(handler);
    return handler;
  }

  /** The next accepted connection's handler not claimed yet; waits for the accept. */
  public H next() {
    try {
      H handler = unclaimed.poll(Await.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      if (handler == null) {
        throw new AssertionError("no connection accepted within " + Await.PATIENCE);
      }
      return handler;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for an accept", e);
    }
  }

  /** Every handler made so far. */
  public List<H> all() {
    return List.copyOf(all);
  }

  /** How many connections were accepted. */
  public int count() {
    return all.size();
  }

  /** Waits until {@code n} connections were accepted. */
  public void awaitCount(int n) {
    Await.until(() -> all.size() >= n, () -> n + " accepts (" + all.size() + " so far)");
  }
}
