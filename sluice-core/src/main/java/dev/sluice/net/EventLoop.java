package dev.sluice.net;

import dev.sluice.internal.Lenders;
import dev.sluice.internal.LoopInternals;
import dev.sluice.internal.MemoryCounters;
import dev.sluice.internal.ReadSlab;
import dev.sluice.internal.SlabPool;
import dev.sluice.memory.MemoryStats;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One thread, one {@link Poller} (the JDK's NIO selector, or Linux epoll): every connection
 * registered here has all its I/O and callbacks run on this thread. The loop owns the memory that
 * the hot path uses — the read slab, the slab pool, the direct write staging buffer — so
 * connections own none.
 *
 * <p><b>The clock.</b> {@link #nanoTime()} is read at the start of every callback the loop makes (a
 * ready key, a task, a batch of timers), so the first event after a quiet spell sees the time after
 * it, and so do the activity stamps and timers it sets.
 *
 * <p><b>Deferred completions.</b> Write completions and writability changes are queued here by
 * {@link #completeLater} and delivered after the callback that caused them returns: a handler never
 * hears of a write inside the {@code write} call, and one that writes from a completion loops
 * instead of recursing.
 *
 * <p><b>Stopping.</b> Once the group closes, the loop closes every connection and listener (reason
 * {@link CloseReason.Shutdown}), runs every task accepted so far, and refuses new work: a connect
 * fails its future with a {@link ConnectException}, a write fails its listener, a listen throws;
 * callbacks of refused work run on a thread of their own, never the caller's, and are counted
 * ({@link #refusedCount()}).
 */
public final class EventLoop implements Executor {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");
  private static final int TASK_BUDGET = 4096;

  static {
    LoopInternals.install(
        new LoopInternals.Access() {
          @Override
          public MemoryCounters counters(EventLoop loop) {
            return loop.counters;
          }

          @Override
          public Lenders lenders(EventLoop loop) {
            return loop.lenders;
          }
        });
  }

  private enum State {
    RUNNING,
    /** Closing everything; tasks still run, new connections and registrations are refused. */
    STOPPING,
    /** Everything closed; tasks from other threads are rejected. */
    STOPPED
  }

  private final EventLoopGroup group;
  private final TransportConfig config;
  private final Thread thread;
  private final Poller poller;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final MemoryCounters counters = new MemoryCounters();
  private final Lenders lenders = new Lenders();
  private final LongAdder refused = new LongAdder();
  private final LongAdder bytesSpliced = new LongAdder();
  private final LongAdder bytesCopiedOutOfPipes = new LongAdder();
  private final LongAdder splicePoolEmpty = new LongAdder();
  private final AtomicLong longestTurnNanos = new AtomicLong();
  private final SlabPool slabPool;
  private final ReadSlab readSlab;
  private final TimerWheel timers;
  private final Poller.ReadySink onReady = this::dispatch;
  private final ByteBuffer[] gather = new ByteBuffer[64];
  private final Map<LoopLocal<?>, AutoCloseable> locals = new IdentityHashMap<>();
  private final List<AutoCloseable> localsInCreationOrder = new ArrayList<>();
  private List<Runnable> afterNextSelect = new ArrayList<>();
  private volatile State state = State.RUNNING;
  private Arena stagingArena;
  private ByteBuffer staging;
  private long nowNanos;
  private long firstKeyNanos;

  // Completions to deliver after the current callback: a ring of (listener, error) pairs.
  private WriteListener[] completionListeners = new WriteListener[64];
  private Throwable[] completionErrors = new Throwable[64];
  private int completionHead;
  private int completionCount;

  EventLoop(EventLoopGroup group, TransportConfig config, Transport transport, int index)
      throws IOException {
    this.group = group;
    this.config = config;
    this.poller = transport == Transport.EPOLL ? new EpollPoller() : new NioPoller();
    this.slabPool = new SlabPool(config.slabSize(), config.slabPoolSize(), counters, this);
    this.readSlab = new ReadSlab(slabPool, config.copyThreshold());
    lenders.add(readSlab);
    this.nowNanos = System.nanoTime();
    this.timers = new TimerWheel(config.timerTick().toNanos(), 512, nowNanos);
    this.thread =
        Thread.ofPlatform().name("sluice-loop-" + index).daemon(true).unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  /** Frees what the constructor took, for a group that failed to start. */
  void closeUnstarted() {
    poller.close();
    slabPool.close();
  }

  /** The transport this loop runs on: {@link Transport#EPOLL} or {@link Transport#NIO}. */
  public Transport transport() {
    return poller.transport();
  }

  /** The group this loop belongs to. */
  public EventLoopGroup group() {
    return group;
  }

  /** Whether the calling thread is this loop's thread. */
  public boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /** Whether the loop is stopping or has stopped: it takes no new connections. */
  public boolean isShuttingDown() {
    return state != State.RUNNING;
  }

  /**
   * Runs {@code task} on this loop, after what is already queued.
   *
   * @throws RejectedExecutionException once the loop has stopped
   */
  @Override
  public void execute(Runnable task) {
    boolean fromOutside = !inLoop();
    if (fromOutside && state == State.STOPPED) {
      throw rejected();
    }
    tasks.add(task);
    if (fromOutside && state == State.STOPPED && tasks.remove(task)) {
      throw rejected(); // added after the loop's last drain: it would never run
    }
    if (fromOutside && wakeupPending.compareAndSet(false, true)) {
      poller.wakeup();
    }
  }

  private RejectedExecutionException rejected() {
    return new RejectedExecutionException("event loop " + thread.getName() + " is shut down");
  }

  /**
   * Runs {@code task} on this loop; once the loop has stopped, runs {@code ifStopped} instead, on a
   * thread of its own (never the caller's), and counts the refusal.
   */
  public void submit(Runnable task, Runnable ifStopped) {
    try {
      execute(task);
    } catch (RejectedExecutionException stopped) {
      refuse(ifStopped);
    }
  }

  private void refuse(Runnable ifStopped) {
    refused.increment();
    Thread.ofVirtual().name(thread.getName() + "-refused").start(ifStopped);
  }

  /**
   * Runs {@code action} now when called on this loop's thread, else queues it. Once the loop has
   * stopped the action is counted as refused and not run: stopping closed everything it could have
   * acted on.
   */
  public void runOnLoop(Runnable action) {
    if (inLoop()) {
      action.run();
    } else {
      submit(action, () -> {});
    }
  }

  /**
   * The longest the loop went without returning to select (one turn: its ready keys, tasks, timers
   * and completions) since the last call, which starts the next measurement. A stalled loop delays
   * every connection on it.
   */
  public long takeLongestTurnNanos() {
    return longestTurnNanos.getAndSet(0);
  }

  /** Bytes this loop's connections moved socket to socket inside the kernel (splice). */
  public long bytesSpliced() {
    return bytesSpliced.sum();
  }

  /** Bytes of spliced reads that a stalled target could not take, copied out of a pipe. */
  public long bytesCopiedOutOfPipes() {
    return bytesCopiedOutOfPipes.sum();
  }

  /**
   * Reads that were to be spliced but found no pipe free in this loop's pool (every one held by a
   * streaming connection, or a new one could not be made), and were ordinary reads instead.
   */
  public long splicePoolEmptyCount() {
    return splicePoolEmpty.sum();
  }

  void countSplicePoolEmpty() {
    splicePoolEmpty.increment();
  }

  void countSplice(long moved, long copiedOut) {
    if (moved > 0) {
      bytesSpliced.add(moved);
    }
    if (copiedOut > 0) {
      bytesCopiedOutOfPipes.add(copiedOut);
    }
  }

  /** Operations refused because this loop had stopped (their futures and listeners failed). */
  public long refusedCount() {
    return refused.sum();
  }

  /** Memory this loop holds right now. */
  public MemoryStats memoryStats() {
    return counters.snapshot();
  }

  /**
   * Connects to {@code address} (TCP, or Unix-domain for a {@link UnixDomainSocketAddress}). The
   * future completes after {@link ConnectionHandler#onActive}, or fails with a {@link
   * ConnectException} (refused, unreachable, timed out, or the loop shutting down); the handler
   * hears nothing of a connection that never became active.
   */
  public CompletableFuture<Connection> connect(
      SocketAddress address, SocketOptions options, ConnectionHandler handler) {
    CompletableFuture<Connection> future = new CompletableFuture<>();
    submit(
        () -> SocketConnection.connect(this, address, options, handler, future),
        () -> future.completeExceptionally(shutDownConnect(address)));
    return future;
  }

  ConnectException shutDownConnect(SocketAddress address) {
    return new ConnectException(
        "connect to " + address + " refused: event loop " + thread.getName() + " is shut down");
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
   * @throws IllegalArgumentException when {@code delay} is negative or above {@link Timeouts#MAX}
   */
  public Timeout schedule(Duration delay, Runnable task) {
    requireInLoop("schedule");
    Timeout timeout = new Timeout(task);
    timers.schedule(timeout, Timeouts.check("delay", delay).toNanos(), nowNanos);
    return timeout;
  }

  /**
   * The loop's clock ({@link System#nanoTime()} as read at the start of the current callback): what
   * activity stamps and timers are measured against.
   */
  public long nanoTime() {
    return nowNanos;
  }

  /**
   * Tells {@code listener} of {@code error} (null: success) after the current callback returns, in
   * the order of the calls. Loop thread only; a null listener is ignored.
   */
  public void completeLater(WriteListener listener, Throwable error) {
    if (listener == null) {
      return;
    }
    if (completionCount == completionListeners.length) {
      growCompletions();
    }
    int slot = (completionHead + completionCount) & (completionListeners.length - 1);
    completionListeners[slot] = listener;
    completionErrors[slot] = error;
    completionCount++;
  }

  private void growCompletions() {
    int size = completionListeners.length;
    WriteListener[] listeners = new WriteListener[size * 2];
    Throwable[] errors = new Throwable[size * 2];
    for (int i = 0; i < completionCount; i++) {
      listeners[i] = completionListeners[(completionHead + i) & (size - 1)];
      errors[i] = completionErrors[(completionHead + i) & (size - 1)];
    }
    completionListeners = listeners;
    completionErrors = errors;
    completionHead = 0;
  }

  /** Delivers every deferred completion, including those the deliveries defer in turn. */
  private void runCompletions() {
    while (completionCount > 0) {
      int slot = completionHead;
      WriteListener listener = completionListeners[slot];
      Throwable error = completionErrors[slot];
      completionListeners[slot] = null;
      completionErrors[slot] = null;
      completionHead = (slot + 1) & (completionListeners.length - 1);
      completionCount--;
      WriteListener.notify(listener, error);
    }
  }

  /** The settings this loop runs with. */
  public TransportConfig config() {
    return config;
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

  Lenders lenders() {
    return lenders;
  }

  TimerWheel timers() {
    return timers;
  }

  ByteBuffer[] gatherArray() {
    return gather;
  }

  MemoryCounters counters() {
    return counters;
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

  /**
   * Runs {@code action} once the selector has let go of the channels whose keys were cancelled
   * before now: a registered channel's socket is closed only then, so this is when a closed
   * listener's address can be bound again.
   */
  void afterCancelledKeysFlushed(Runnable action) {
    afterNextSelect.add(action);
  }

  private void runAfterSelect() {
    if (afterNextSelect.isEmpty()) {
      return;
    }
    List<Runnable> due = afterNextSelect;
    afterNextSelect = new ArrayList<>();
    for (Runnable action : due) {
      nowNanos = System.nanoTime();
      try {
        action.run();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "task failed on " + thread.getName(), t);
      }
      runCompletions();
    }
  }

  Poller poller() {
    return poller;
  }

  /** Registers {@code socket}; refused once the loop is stopping (the caller closes the socket). */
  void register(StreamSocket socket, int ops, Pollable owner) throws IOException {
    requireRunning();
    socket.register(poller, owner, ops);
  }

  /** Registers {@code socket}; refused once the loop is stopping (the caller closes the socket). */
  void register(ListenSocket socket, Pollable owner) throws IOException {
    requireRunning();
    socket.register(poller, owner);
  }

  private void requireRunning() throws IOException {
    if (state != State.RUNNING) {
      throw new IOException("event loop " + thread.getName() + " is shut down");
    }
  }

  // ---- the loop ----

  private void run() {
    slabPool.bindToCurrentThread();
    try {
      while (state == State.RUNNING) {
        long wait = timers.nanosToNextTick(System.nanoTime());
        firstKeyNanos = 0;
        if (!tasks.isEmpty() || wait == 0 || !afterNextSelect.isEmpty()) {
          poller.poll(0, onReady);
        } else if (wait < 0) {
          poller.poll(-1, onReady);
        } else {
          poller.poll(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)), onReady);
        }
        wakeupPending.set(false);
        nowNanos = System.nanoTime();
        long turnStarted = firstKeyNanos != 0 ? firstKeyNanos : nowNanos;
        runAfterSelect();
        runTasks(TASK_BUDGET);
        nowNanos = System.nanoTime();
        timers.advance(nowNanos);
        runCompletions();
        long turn = System.nanoTime() - turnStarted;
        if (turn > longestTurnNanos.get()) {
          longestTurnNanos.accumulateAndGet(turn, Math::max);
        }
      }
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.ERROR, "event loop " + thread.getName() + " failed", t);
    } finally {
      closeEverything();
    }
  }

  private void dispatch(Pollable pollable, int readyOps) {
    nowNanos = System.nanoTime(); // keys are dispatched inside the poll: after the wait
    if (firstKeyNanos == 0) {
      firstKeyNanos = nowNanos; // the turn starts with the first ready key
    }
    try {
      pollable.onReady(readyOps);
    } catch (RuntimeException e) {
      // One socket's failure must not stop the loop and every connection on it.
      pollable.onUnexpectedFailure(e);
    }
    runCompletions();
  }

  /** Runs up to {@code budget} queued tasks, including those the tasks queue; returns how many. */
  private int runTasks(int budget) {
    int ran = 0;
    Runnable task;
    while (ran < budget && (task = tasks.poll()) != null) {
      ran++;
      nowNanos = System.nanoTime();
      try {
        task.run();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "task failed on " + thread.getName(), t);
      }
      runCompletions();
    }
    return ran;
  }

  void shutdown() {
    if (state == State.RUNNING) {
      state = State.STOPPING;
    }
    poller.wakeup();
  }

  CompletableFuture<Void> terminationFuture() {
    return terminated;
  }

  private void closeEverything() {
    try {
      state = State.STOPPING;
      // Tasks accepted so far run (writes are answered, slabs returned, accepted channels and
      // connects refused); then every channel closes, which may queue more work (a reconnect
      // from onClose), which runs and is refused in turn.
      drain();
      for (Pollable pollable : poller.registrations()) {
        pollable.closeForShutdown();
      }
      drain();
      closeLocals();
      readSlab.close();
      slabPool.close();
      if (stagingArena != null) {
        stagingArena.close();
        counters.addStagingBytes(-config.stagingSize());
        staging = null;
      }
      state = State.STOPPED;
      drain(); // what other threads queued before they could see STOPPED
      poller.close(); // NIO: closes the sockets of every cancelled key
      runAfterSelect();
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.WARNING, "error closing " + thread.getName(), t);
    } finally {
      terminated.complete(null);
    }
  }

  private void drain() {
    while (runTasks(Integer.MAX_VALUE) > 0 || completionCount > 0) {
      runCompletions();
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

  @Override
  public String toString() {
    return thread.getName();
  }
}
