package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.proxy.ProxyStream;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.TlsVersion;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The load client's common parts, the same in every arm: where the proxy is, its TLS, one fresh
 * pattern seed per connection, bounded parallel loops, and the integrity verdict.
 */
final class LoadSupport {
  private final InetSocketAddress proxy;
  private final BenchTls tls;
  private final AtomicLong seeds = new AtomicLong();
  private final Set<Long> failed = ConcurrentHashMap.newKeySet();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();

  private LoadSupport(InetSocketAddress proxy, BenchTls tls) {
    this.proxy = proxy;
    this.tls = tls;
  }

  /**
   * Waits until the harness says the proxy is ready (the client JVM starts alongside it), then
   * returns the client's view of the run's params.
   */
  static LoadSupport start(ChildControl control) throws Exception {
    control.await("GO");
    return from(control.params());
  }

  /** The client's view of a run's params. */
  static LoadSupport from(Params params) throws Exception {
    BenchTls tls =
        ProxyWorkload.tls(params)
            ? BenchTls.from(
                params.with(TlsVersion.OPTION, params.string(ProxyWorkload.TLS_VERSION)))
            : null;
    return new LoadSupport(
        new InetSocketAddress("127.0.0.1", params.intCount(ProxyWorkload.PROXY_PORT)), tls);
  }

  /** Opens a connection through the proxy with the next seed. */
  ProxyStream open() throws java.io.IOException {
    return ProxyStream.open(seeds.getAndIncrement(), proxy, tls);
  }

  /** Records {@code stream}'s first wrong byte, if it had one (once per connection). */
  void check(ProxyStream stream) {
    String failure = stream.failure();
    if (failure != null && failed.add(stream.seed())) {
      firstFailure.compareAndSet(null, failure);
    }
  }

  /** The integrity fields of a report: {@code integrity} and {@code integrityDetail}. */
  Map<String, Object> integrity() {
    Map<String, Object> fields = new LinkedHashMap<>();
    long n = failed.size();
    fields.put("integrity", n == 0 ? "OK" : "FAIL");
    fields.put("integrityDetail", n == 0 ? "" : firstFailure.get() + " (" + n + " connections)");
    return fields;
  }

  /** Sends {@code word} with {@code fields} and the integrity verdict. */
  void report(ChildControl control, String word, Map<String, ?> fields) {
    Map<String, Object> all = new LinkedHashMap<>(fields);
    all.putAll(integrity());
    control.send(word, all);
  }

  /** One task of a parallel loop. */
  @FunctionalInterface
  interface Task {
    void run(int index) throws Exception;
  }

  /**
   * Runs {@code task} for indexes 0 .. count-1 on {@code parallel} threads (virtual or platform),
   * at most {@code parallel} at once; the first failure stops the loop and is thrown.
   */
  static void parallel(int count, int parallel, boolean virtual, Task task) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> error = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    Runnable worker =
        () -> {
          int i;
          while (error.get() == null && (i = next.getAndIncrement()) < count) {
            try {
              task.run(i);
            } catch (Throwable t) {
              error.compareAndSet(null, t);
            }
          }
        };
    for (int t = 0; t < Math.min(parallel, count); t++) {
      threads.add(
          virtual
              ? Thread.ofVirtual().name("load-", t).start(worker)
              : Thread.ofPlatform().name("load-", t).daemon(true).start(worker));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    Throwable t = error.get();
    if (t instanceof Exception e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
  }

  /**
   * Opens {@code count} connections, each exchanging {@code bytes} ({@link ProxyStream#exchange}),
   * at most {@code parallel} at a time on virtual or platform threads; keeps them open when {@code
   * keep} is non-null (slot = index), closes them otherwise.
   */
  void exchangeEach(int count, int parallel, boolean virtual, long bytes, ProxyStream[] keep)
      throws Exception {
    parallel(
        count,
        parallel,
        virtual,
        i -> {
          ProxyStream stream = open();
          try {
            stream.exchange(bytes);
            check(stream);
          } catch (Exception e) {
            stream.close();
            throw e;
          }
          if (keep != null) {
            keep[i] = stream;
          } else {
            stream.close();
          }
        });
  }

  /** Opens {@code count} connections without sending anything, {@code parallel} at a time. */
  ProxyStream[] openEach(int count, int parallel) throws Exception {
    ProxyStream[] streams = new ProxyStream[count];
    try {
      parallel(count, parallel, true, i -> streams[i] = open());
    } catch (Exception e) {
      closeAll(streams);
      throw e;
    }
    return streams;
  }

  /** Closes every stream in {@code streams}. */
  static void closeAll(ProxyStream[] streams) {
    for (ProxyStream s : streams) {
      if (s != null) {
        try {
          s.close();
        } catch (java.io.IOException ignored) {
          // closing at the end of a run
        }
      }
    }
  }
}
