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
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
  private final Map<LoopLocal<?>, AutoCloseable> locals = new IdentityHashMap<>();
  private final List<AutoCloseable> localsInCreationOrder = new ArrayList<>();
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

  /**
   * Runs {@code action} now when called on this loop's thread, else queues it. Once the loop has
   * stopped the action is dropped: stopping closed everything the action could have touched.
   */
  public void runOnLoop(Runnable action) {
    if (inLoop()) {
      action.run();
    } else {
      try {
        execute(action);
      } catch (RejectedExecutionException stopped) {
        // The loop closed every connection on its way out.
      }
    }
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

  /**
   * This loop's instance of {@code slot}, created on first use. Loop thread only: the resource
   * belongs to the loop and is closed by it when it stops.
   *
   * @throws IllegalStateException when called from another thread
   */
  public <T extends AutoCloseable> T local(LoopLocal<T> slot) {
    requireInLoop("local");
    AutoCloseable existing = locals.get(slot);
    if (existing == null) {
      existing = slot.create(this);
      locals.put(slot, existing);
      localsInCreationOrder.add(existing);
    }
    @SuppressWarnings("unchecked") // the map only pairs a slot with what its own factory made
    T resource = (T) existing;
    return resource;
  }

  /**
   * Runs {@code task} on this loop once {@code delay} has passed (at the resolution of {@link
   * TransportConfig#timerTick()}), unless the returned timeout is cancelled first. Scheduling and
   * cancelling cost O(1) and allocate only the handle. Loop thread only.
   *
   * @throws IllegalStateException when called from another thread
   */
  public Timeout schedule(Duration delay, Runnable task) {
    requireInLoop("schedule");
    Timeout timeout = new Timeout(task);
    timers.schedule(timeout, delay.toNanos(), nowNanos);
    return timeout;
  }

  /** The settings this loop runs with. */
  public TransportConfig config() {
    return config;
  }

  /**
   * The loop's memory counters. Layers on top of the transport (TLS) add the memory they hold; only
   * this loop's thread may add.
   */
  public MemoryCounters counters() {
    return counters;
  }

  private void requireInLoop(String what) {
    if (!inLoop()) {
      throw new IllegalStateException(what + " must be called on " + thread.getName());
    }
  }

  // ---- loop-internal API used by Connection and Listener ----

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
      try {
        selectable.onSelected(key);
      } catch (RuntimeException e) {
        // One channel's failure must not stop the loop and every connection on it.
        selectable.onUnexpectedFailure(e);
      }
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
      closeLocals();
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

  private void closeLocals() {
    for (int i = localsInCreationOrder.size() - 1; i >= 0; i--) {
      try {
        localsInCreationOrder.get(i).close();
      } catch (Exception e) {
        LOG.log(System.Logger.Level.WARNING, "error closing a loop-local resource", e);
      }
    }
    localsInCreationOrder.clear();
    locals.clear();
  }

  /** A task scheduled with {@link #schedule}; cancel it on the loop thread. */
  public final class Timeout extends TimerWheel.Timer {
    private final Runnable task;

    private Timeout(Runnable task) {
      this.task = task;
    }

    /** Stops the task from running; does nothing once it ran or was cancelled. Loop thread only. */
    public void cancel() {
      timers.cancel(this);
    }

    @Override
    void expire() {
      try {
        task.run();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "scheduled task failed on " + thread.getName(), t);
      }
    }
  }

  /** Something registered with the selector. */
  interface Selectable {
    void onSelected(SelectionKey key);

    /** {@link #onSelected} threw: close or pause what failed, and only that. */
    void onUnexpectedFailure(RuntimeException e);

    void closeForShutdown();
  }

  @Override
  public String toString() {
    return thread.getName();
  }
}
