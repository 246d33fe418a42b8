package dev.sluice.net;

import dev.sluice.memory.MemoryStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A fixed set of {@link EventLoop}s. Listeners spread accepted connections over them round-robin;
 * each connection stays on its loop for life. Closing the group closes every connection and
 * listener and frees every slab the loops own.
 */
public final class EventLoopGroup implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  /** The automatic choice is logged at INFO once per JVM: it cannot change while it runs. */
  private static final java.util.concurrent.atomic.AtomicBoolean AUTO_LOGGED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private final TransportConfig config;
  private final Transport transport;
  private final List<EventLoop> loops;
  private final AtomicInteger nextLoop = new AtomicInteger();

  /**
   * Starts {@link TransportConfig#eventLoops()} loop threads on the configured transport.
   *
   * @throws IllegalStateException when {@link Transport#EPOLL} is asked for where it cannot run
   */
  public EventLoopGroup(TransportConfig config) {
    this.config = config;
    this.transport = config.transport().resolve();
    boolean firstAuto =
        config.transport() == Transport.AUTO && AUTO_LOGGED.compareAndSet(false, true);
    LOG.log(
        firstAuto ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
        "event loops run on {0} (transport {1}){2}",
        transport.id(),
        config.transport().id(),
        transport == Transport.NIO && config.transport() == Transport.AUTO
            ? ": epoll is unavailable, " + Transport.epollUnavailable().orElse("")
            : "");
    EventLoop[] created = new EventLoop[config.eventLoops()];
    try {
      for (int i = 0; i < created.length; i++) {
        created[i] = new EventLoop(this, config, transport, i);
      }
    } catch (IOException e) {
      for (EventLoop loop : created) {
        if (loop != null) {
          loop.closeUnstarted();
        }
      }
      throw new UncheckedIOException("cannot open a " + transport.id() + " poller", e);
    }
    this.loops = List.of(created);
    loops.forEach(EventLoop::start);
  }

  /** A group with the default configuration. */
  public EventLoopGroup() {
    this(TransportConfig.defaults());
  }

  /** The configuration this group runs with. */
  public TransportConfig config() {
    return config;
  }

  /** The transport the loops run on: {@link Transport#EPOLL} or {@link Transport#NIO}. */
  public Transport transport() {
    return transport;
  }

  /** The loops, in a fixed order. */
  public List<EventLoop> loops() {
    return loops;
  }

  /** The next loop in round-robin order. */
  public EventLoop next() {
    return loops.get(Math.floorMod(nextLoop.getAndIncrement(), loops.size()));
  }

  /**
   * Binds {@code address} (TCP, or Unix-domain for a {@link java.net.UnixDomainSocketAddress}) and
   * accepts connections, each with a fresh handler from {@code handlers}.
   *
   * @throws IOException if the address cannot be bound, with the address in the message
   */
  public Listener listen(
      SocketAddress address, SocketOptions options, Supplier<? extends ConnectionHandler> handlers)
      throws IOException {
    return Listener.open(this, next(), address, options, handlers);
  }

  /** Connects on the next loop; see {@link EventLoop#connect}. */
  public CompletableFuture<Connection> connect(
      SocketAddress address, SocketOptions options, ConnectionHandler handler) {
    return next().connect(address, options, handler);
  }

  /** Memory held by all loops together. */
  public MemoryStats memoryStats() {
    MemoryStats total = MemoryStats.ZERO;
    for (EventLoop loop : loops) {
      total = total.plus(loop.memoryStats());
    }
    return total;
  }

  /** Whether the calling thread is one of this group's loop threads. */
  public boolean inLoop() {
    for (EventLoop loop : loops) {
      if (loop.inLoop()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Starts closing every listener and connection (reason {@link CloseReason.Shutdown}) and freeing
   * the loops' memory; the future completes once every loop thread has finished. Safe to call from
   * a loop thread, and more than once.
   */
  public CompletableFuture<Void> closeAsync() {
    loops.forEach(EventLoop::shutdown);
    return CompletableFuture.allOf(
        loops.stream().map(EventLoop::terminationFuture).toArray(CompletableFuture[]::new));
  }

  /**
   * Closes every listener and connection (reason {@link CloseReason.Shutdown}), frees the loops'
   * memory and waits up to 10 s for the threads to finish.
   *
   * @throws IllegalStateException when called on one of the group's own loop threads (it would wait
   *     for itself: use {@link #closeAsync()}), or when a loop did not stop within 10 s
   */
  @Override
  public void close() {
    if (inLoop()) {
      throw new IllegalStateException(
          "EventLoopGroup.close() called on its own event loop thread "
              + Thread.currentThread().getName()
              + ", which it would wait for: use closeAsync()");
    }
    try {
      closeAsync().get(10, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the event loops did not stop within 10 s", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("an event loop failed to stop", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
