package dev.sluice.internal;

import dev.sluice.net.EventLoop;
import dev.sluice.net.WriteListener;
import java.util.function.Supplier;

/**
 * How a write gets into a connection's {@link WriteQueue}, the same for plain and TLS connections:
 * on the loop thread at once (a borrowed read refused by the loop's {@link Lenders}, since it dies
 * with its callback), from any other thread through the loop's task queue, failed with the
 * connection's close error once the loop has stopped; {@code writeTransient} on the loop thread
 * only. The loop-thread path allocates nothing: the caller enqueues itself.
 */
public final class WriteEntry {
  private WriteEntry() {}

  /**
   * For a write from another thread: runs {@code enqueue} on the loop, or, once the loop has
   * stopped, fails {@code listener} with {@code closed} (on a thread of its own).
   */
  public static void submit(
      EventLoop loop,
      WriteListener listener,
      Runnable enqueue,
      Supplier<? extends Throwable> closed) {
    loop.submit(enqueue, () -> WriteListener.notify(listener, closed.get()));
  }

  /** For {@code writeTransient}: its bytes live only during the call, on the loop thread. */
  public static void requireLoopForTransient(EventLoop loop) {
    if (!loop.inLoop()) {
      throw new IllegalStateException(
          "writeTransient must be called on the connection's event loop (" + loop + ")");
    }
  }
}
