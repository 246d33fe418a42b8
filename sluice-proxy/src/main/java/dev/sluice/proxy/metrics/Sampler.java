package dev.sluice.proxy.metrics;

import dev.sluice.net.EventLoop;
import dev.sluice.proxy.forward.PairRegistry;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.ProxyRuntime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples what needs a time window, once a second on its own thread: each loop's longest turn (the
 * loop resets it when read, so one reader owns it), each listener's rates, and each loop's pairs,
 * read by a task on the loop, whose answer also shows that the loop is alive. Readers (the metrics,
 * the status page, liveness) see the last {@value #WINDOW} seconds.
 */
public final class Sampler implements AutoCloseable {
  /** Seconds in a window. */
  public static final int WINDOW = 10;

  private final ProxyRuntime runtime;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("sluice-sampler").daemon(true).factory());
  private final Map<EventLoop, Window> turns = new HashMap<>();
  private final Map<EventLoop, LoopSample> loops = new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<String, ListenerRates> rates = new HashMap<>();

  /** A listener's rates over the window, per second, with the highest accept rate seen. */
  public record Rates(
      double accepts, double bytesFromClients, double bytesFromUpstreams, double maxAccepts) {
    static final Rates ZERO = new Rates(0, 0, 0, 0);
  }

  public Sampler(ProxyRuntime runtime) {
    this.runtime = runtime;
    sample();
    thread.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
  }

  /** The longest turn {@code loop} took in the window, in nanoseconds. */
  public synchronized long longestTurnNanos(EventLoop loop) {
    Window w = turns.get(loop);
    return w == null ? 0 : w.max();
  }

  /** The listener's rates over the window. */
  public synchronized Rates rates(String listener) {
    ListenerRates r = rates.get(listener);
    return r == null ? Rates.ZERO : r.now();
  }

  /** Pairs on {@code loop} at its last answer. */
  public int pairs(EventLoop loop) {
    LoopSample sample = loops.get(loop);
    return sample == null ? 0 : sample.pairs;
  }

  /**
   * How long ago {@code loop} last ran the sampler's task (a loop stuck in a callback does not): a
   * second or so when it is well.
   */
  public long sinceAnswerNanos(EventLoop loop) {
    LoopSample sample = loops.get(loop);
    return sample == null ? 0 : System.nanoTime() - sample.answeredNanos;
  }

  /** Takes a sample now (the thread does it each second; tests may call it). */
  public synchronized void sample() {
    for (EventLoop loop : runtime.group().loops()) {
      turns.computeIfAbsent(loop, l -> new Window()).add(loop.takeLongestTurnNanos());
      LoopSample sample = loops.computeIfAbsent(loop, l -> new LoopSample());
      loop.submit(
          () -> {
            sample.pairs = PairRegistry.of(loop).size();
            sample.answeredNanos = System.nanoTime();
          },
          () -> {});
    }
    long now = System.nanoTime();
    List<ListenerRuntime> listeners = runtime.listeners();
    rates.keySet().retainAll(listeners.stream().map(ListenerRuntime::name).toList());
    for (ListenerRuntime l : listeners) {
      rates.computeIfAbsent(l.name(), n -> new ListenerRates()).add(now, l.stats());
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }

  /** What a loop said at its last answer. */
  private static final class LoopSample {
    volatile int pairs;
    volatile long answeredNanos = System.nanoTime();
  }

  /** The last {@link #WINDOW} samples of a value. */
  private static final class Window {
    private final long[] values = new long[WINDOW];
    private int next;

    void add(long value) {
      values[next] = value;
      next = (next + 1) % WINDOW;
    }

    long max() {
      long max = 0;
      for (long v : values) {
        max = Math.max(max, v);
      }
      return max;
    }
  }

  /** Counter readings at the window's start and now, for rates. */
  private static final class ListenerRates {
    private final long[] when = new long[WINDOW + 1];
    private final long[] accepted = new long[WINDOW + 1];
    private final long[] fromClients = new long[WINDOW + 1];
    private final long[] fromUpstreams = new long[WINDOW + 1];
    private int samples;
    private int next;
    private double maxAccepts;

    void add(long now, ListenerStats stats) {
      when[next] = now;
      accepted[next] = stats.acceptedCount();
      fromClients[next] = stats.bytesFromClients();
      fromUpstreams[next] = stats.bytesFromUpstreams();
      next = (next + 1) % when.length;
      samples = Math.min(samples + 1, when.length);
      if (samples > 1) {
        int latest = (next + when.length - 1) % when.length;
        int before = (next + when.length - 2) % when.length;
        maxAccepts = Math.max(maxAccepts, perSecond(accepted, before, latest));
      }
    }

    Rates now() {
      if (samples < 2) {
        return new Rates(0, 0, 0, maxAccepts);
      }
      int latest = (next + when.length - 1) % when.length;
      int oldest = samples < when.length ? 0 : next;
      return new Rates(
          perSecond(accepted, oldest, latest),
          perSecond(fromClients, oldest, latest),
          perSecond(fromUpstreams, oldest, latest),
          maxAccepts);
    }

    private double perSecond(long[] counter, int from, int to) {
      double seconds = (when[to] - when[from]) / 1e9;
      return seconds <= 0 ? 0 : (counter[to] - counter[from]) / seconds;
    }
  }
}
