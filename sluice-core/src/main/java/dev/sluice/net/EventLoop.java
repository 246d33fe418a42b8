package dev.sluice.net;

import dev.sluice.memory.MemoryCounters;
import dev.sluice.memory.MemoryStats;
import dev.sluice.memory.ReadSlab;
import dev.sluice.memory.SlabPool;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One thread, one {@link Selector}: every connection registered here has all its I/O and callbacks
 * run on this thread. The loop owns the memory that the hot path uses — the read slab, the slab
 * pool, the direct write staging buffer — so connections own none.
 */
public final class EventLoop implements Executor {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");

  private final EventLoopGroup group;
  private final TransportConfig config;
  private final Thread thread;
  private final Selector selector;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final MemoryCounters counters = new MemoryCounters();
  private final SlabPool slabPool;
  private final ReadSlab readSlab;
  private final TimerWheel timers;
  private final Consumer<SelectionKey> onSelected = this::dispatch;
  private final ByteBuffer[] gather = new ByteBuffer[64];
  private volatile boolean shuttingDown;
  private volatile boolean rejectingTasks;
  private Arena stagingArena;
  private ByteBuffer staging;
  private long nowNanos;

  EventLoop(EventLoopGroup group, TransportConfig config, int index) throws IOException {
    this.group = group;
    this.config = config;
    this.selector = Selector.open();
    this.slabPool = new SlabPool(config.slabSize(), config.slabPoolSize(), counters, this);
    this.readSlab = new ReadSlab(slabPool, config.copyThreshold());
    this.nowNanos = System.nanoTime();
    this.timers = new TimerWheel(config.timerTick().toNanos(), 512, nowNanos);
    this.thread =
        Thread.ofPlatform().name("sluice-loop-" + index).daemon(true).unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  /** The group this loop belongs to. */
  public EventLoopGroup group() {
    return group;
  }

  /** Whether the calling thread is this loop's thread. */
  public boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /**
   * Runs {@code task} on this loop, after what is already queued.
   *
   * @throws RejectedExecutionException once the loop has shut down
   */
  @Override
  public void execute(Runnable task) {
    if (rejectingTasks && !inLoop()) {
      throw rejected();
    }
    tasks.add(task);
    if (rejectingTasks && !inLoop() && tasks.remove(task)) {
      throw rejected(); // added after the loop's last drain: it would never run
    }
    if (!inLoop() && wakeupPending.compareAndSet(false, true)) {
      selector.wakeup();
    }
  }

  private RejectedExecutionException rejected() {
    return new RejectedExecutionException("event loop " + thread.getName() + " is shut down");
  }

  /** Memory this loop holds right now. */
  public MemoryStats memoryStats() {
    return counters.snapshot();
  }

  /**
   * Connects to {@code address} (TCP, or Unix-domain for a {@link UnixDomainSocketAddress}). The
   * future completes after {@link ConnectionHandler#onActive}, or fails with a {@link
   * java.net.ConnectException} (refused, unreachable, timed out); the handler hears nothing of a
   * connection that never became active.
   */
  public CompletableFuture<Connection> connect(
      SocketAddress address, SocketOptions options, ConnectionHandler handler) {
    CompletableFuture<Connection> future = new CompletableFuture<>();
    execute(() -> SocketConnection.connect(this, address, options, handler, future));
    return future;
  }

  // ---- loop-internal API used by Connection and Listener ----

  TransportConfig config() {
    return config;
  }

  MemoryCounters counters() {
    return counters;
  }

  ReadSlab readSlab() {
    return readSlab;
  }

  TimerWheel timers() {
    return timers;
  }

  ByteBuffer[] gatherArray() {
    return gather;
  }

  long now() {
    return nowNanos;
  }

  /** The direct buffer heap buffers are written through, created on first use. */
  ByteBuffer staging() {
    if (staging == null) {
      stagingArena = Arena.ofConfined();
      staging = stagingArena.allocate(config.stagingSize(), 64).asByteBuffer();
      counters.addStagingBytes(config.stagingSize());
    }
    return staging.clear();
  }

  SelectionKey register(SelectableChannel channel, int ops, Object attachment)
      throws ClosedChannelException {
    return channel.register(selector, ops, attachment);
  }

  static SocketChannel openChannel(SocketAddress address) throws IOException {
    return address instanceof UnixDomainSocketAddress
        ? SocketChannel.open(StandardProtocolFamily.UNIX)
        : SocketChannel.open();
  }

  // ---- the loop ----

  private void run() {
    slabPool.bindToCurrentThread();
    try {
      while (!shuttingDown) {
        long wait = timers.nanosToNextTick(System.nanoTime());
        if (tasks.isEmpty()) {
          if (wait < 0) {
            selector.select(onSelected);
          } else if (wait == 0) {
            selector.selectNow(onSelected);
          } else {
            selector.select(onSelected, Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
          }
        } else {
          selector.selectNow(onSelected);
        }
        wakeupPending.set(false);
        nowNanos = System.nanoTime();
        runTasks();
        timers.advance(nowNanos);
      }
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.ERROR, "event loop " + thread.getName() + " failed", t);
    } finally {
      closeEverything();
    }
  }

  private void dispatch(SelectionKey key) {
    if (key.attachment() instanceof Selectable selectable && key.isValid()) {
      selectable.onSelected(key);
    }
  }

  /** Runs every queued task, including those the tasks queue; no budget (shutdown only). */
  private void drainTasks() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      try {
        task.run();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "task failed on " + thread.getName(), t);
      }
    }
  }

  private void runTasks() {
    Runnable task;
    int budget = 4096; // keep serving sockets even under a flood of tasks
    while (budget-- > 0 && (task = tasks.poll()) != null) {
      try {
        task.run();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "task failed on " + thread.getName(), t);
      }
    }
  }

  void shutdown() {
    shuttingDown = true;
    selector.wakeup();
  }

  boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return terminated.await(timeout, unit);
  }

  private void closeEverything() {
    try {
      // Every task accepted before this point runs (its write is answered, its slab returned,
      // its accepted channel registered and then closed below); later ones are rejected.
      rejectingTasks = true;
      drainTasks();
      for (SelectionKey key : new ArrayList<>(selector.keys())) {
        if (key.attachment() instanceof Selectable selectable) {
          selectable.closeForShutdown();
        }
      }
      drainTasks();
      readSlab.close();
      slabPool.close();
      if (stagingArena != null) {
        stagingArena.close();
        counters.addStagingBytes(-config.stagingSize());
        staging = null;
      }
      selector.close();
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.WARNING, "error closing " + thread.getName(), t);
    } finally {
      terminated.countDown();
    }
  }

  /** Something registered with the selector. */
  interface Selectable {
    void onSelected(SelectionKey key);

    void closeForShutdown();
  }

  @Override
  public String toString() {
    return thread.getName();
  }
}
