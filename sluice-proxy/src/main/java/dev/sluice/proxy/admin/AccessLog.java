package dev.sluice.proxy.admin;

import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.AccessLogTarget;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.ExchangeRecord;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.route.Fingerprint;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.PairObserver;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The access log: one JSON line per closed pair ({@code "kind":"connection"}) and, on HTTP
 * listeners, one per request ({@code "kind":"request"}), written when the request ended. A loop
 * only formats the line and queues it; a thread of the log's own writes it, so that a slow disk
 * never stalls forwarding. When the queue is full the line is dropped and counted ({@code
 * sluice_access_log_dropped_total}) rather than making the loop wait. {@link #reopen} (SIGUSR1)
 * reopens the file after logrotate moved it.
 */
public final class AccessLog implements PairObserver, AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AccessLog.class);
  private static final int QUEUE = 65_536;
  private static final String STOP = new String("stop"); // compared by identity

  private final AccessLogTarget target;
  private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(QUEUE);
  private final AtomicBoolean reopen = new AtomicBoolean();
  private final LongAdder written = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final Thread writerThread;
  private LogWriter out;

  /** Lines in the writer's buffer since its last flush. */
  private long unflushed;

  /** When the writer last failed; {@link #out} is null from then until a retry opens one. */
  private long failedAtNanos;

  private static final long RETRY_NANOS = 5_000_000_000L;

  private AccessLog(AccessLogTarget target, LogWriter out) {
    this.target = target;
    this.out = out;
    this.writerThread =
        Thread.ofPlatform().name("sluice-access-log").daemon(true).start(this::writeLines);
  }

  /** Opens the log at {@code target}; a file is created or appended to. */
  public static AccessLog open(AccessLogTarget target) throws IOException {
    return new AccessLog(target, writerFor(target));
  }

  /** Where it writes. */
  public AccessLogTarget target() {
    return target;
  }

  /** Lines written so far. */
  public long written() {
    return written.sum();
  }

  /** Lines dropped so far (the queue was full, or writing failed). */
  public long dropped() {
    return dropped.sum();
  }

  /** Reopens the file at its path (after logrotate moved it away); stdout is left as it is. */
  public void reopen() {
    reopen.set(true);
    queue.offer(""); // wakes the writer
  }

  @Override
  public void onHttpExchange(ListenerRuntime listener, Pair pair, ExchangeRecord exchange) {
    offer(requestLine(pair, exchange, System.currentTimeMillis()));
  }

  @Override
  public void onPairClosed(ListenerRuntime listener, Pair pair) {
    boolean http = listener.config().http() != null || pair.facts().exchanges() > 0;
    offer(line(pair, http, System.currentTimeMillis()));
  }

  /** Queues one line for the writer, or counts it dropped when the queue is full. */
  void offer(String line) {
    if (!queue.offer(line)) {
      dropped.increment();
    }
  }

  /**
   * The line for {@code pair}, ended at {@code endMillis}; one of an {@code http} listener counts
   * the requests it carried.
   */
  static String line(Pair pair, boolean http, long endMillis) {
    StringBuilder b = new StringBuilder(400);
    b.append("{\"time\":");
    Json.quote(b, Instant.ofEpochMilli(endMillis).toString());
    field(b, "kind", "connection");
    field(b, "listener", pair.listenerName());
    field(b, "client", Endpoint.format(pair.facts().clientAddress()));
    Pair.Upstream target = pair.facts().target();
    field(b, "cluster", target instanceof UpstreamTarget u ? u.cluster().name() : null);
    field(b, "upstream", target == null ? null : target.name());
    tlsFields(b, pair);
    b.append(",\"duration_ms\":").append(millis(pair.facts().ageNanos()));
    long connect = pair.facts().connectNanos();
    b.append(",\"connect_ms\":").append(connect < 0 ? "null" : millis(connect));
    b.append(",\"connect_attempts\":").append(pair.facts().connectAttempts());
    b.append(",\"bytes_from_client\":").append(pair.client().bytesRead());
    b.append(",\"bytes_from_upstream\":").append(pair.upstream().bytesRead());
    b.append(",\"requests\":");
    if (http) {
      b.append(pair.facts().exchanges());
    } else {
      b.append("null");
    }
    field(b, "cause", pair.cause() == null ? null : pair.cause().label());
    field(b, "detail", pair.causeDetail());
    return b.append('}').toString();
  }

  /** The line for one HTTP request of {@code pair}, ended at {@code endMillis}. */
  static String requestLine(Pair pair, ExchangeRecord e, long endMillis) {
    StringBuilder b = new StringBuilder(448);
    b.append("{\"time\":");
    Json.quote(b, Instant.ofEpochMilli(endMillis).toString());
    field(b, "kind", "request");
    field(b, "listener", pair.listenerName());
    field(b, "client", Endpoint.format(pair.facts().clientAddress()));
    field(b, "cluster", e.route());
    field(b, "upstream", e.upstream() == null ? null : e.upstream().name());
    field(b, "method", e.method());
    field(b, "host", e.host());
    field(b, "path", e.path());
    field(b, "version", e.version() == null ? null : e.version().text());
    b.append(",\"status\":");
    if (e.hasResponse()) {
      b.append(e.status());
    } else {
      b.append("null");
    }
    b.append(",\"request_bytes\":").append(e.requestBytes());
    b.append(",\"response_bytes\":").append(e.responseBytes());
    long upstream = e.upstreamNanos();
    b.append(",\"upstream_ms\":").append(upstream < 0 ? "null" : millis(upstream));
    b.append(",\"duration_ms\":").append(millis(e.durationNanos()));
    tlsFields(b, pair);
    field(b, "cause", e.cause() == null ? null : e.cause().label());
    field(b, "detail", e.detail());
    return b.append('}').toString();
  }

  /** What the client's TLS told: SNI, ALPN, its JA3 and JA4. */
  private static void tlsFields(StringBuilder b, Pair pair) {
    field(b, "sni", pair.facts().serverName());
    field(b, "alpn", pair.facts().applicationProtocol());
    Fingerprint fingerprint = pair.facts().fingerprint();
    field(b, "ja3", fingerprint == null ? null : fingerprint.ja3());
    field(b, "ja4", fingerprint == null ? null : fingerprint.ja4());
  }

  private static void field(StringBuilder b, String name, String value) {
    b.append(",\"").append(name).append("\":");
    if (value == null) {
      b.append("null");
    } else {
      Json.quote(b, value);
    }
  }

  private static String millis(long nanos) {
    return Long.toString(nanos / 1_000_000) + "." + (nanos / 100_000) % 10;
  }

  // ---- the writer ----

  private void writeLines() {
    List<String> batch = new ArrayList<>(256);
    while (true) {
      String first;
      try {
        first = queue.poll(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        first = STOP;
      }
      if (reopen.getAndSet(false)) {
        reopenNow();
      } else if (out == null && System.nanoTime() - failedAtNanos > RETRY_NANOS) {
        retryAfterFailure();
      }
      if (first == null) {
        continue;
      }
      batch.add(first);
      queue.drainTo(batch, 4096);
      boolean stop = false;
      for (String line : batch) {
        if (line == STOP) {
          stop = true;
        } else if (!line.isEmpty()) {
          write(line);
        }
      }
      batch.clear();
      flush();
      if (stop) {
        closeWriter();
        return;
      }
    }
  }

  private void write(String line) {
    if (out == null) {
      dropped.increment();
      return;
    }
    try {
      out.write(line);
      out.write('\n');
      unflushed++;
    } catch (IOException e) {
      dropped.increment();
      failed("write", e);
    }
  }

  /**
   * A write or flush failed (a full disk, a closed stdout): the writer is given up, so that a
   * half-flushed buffer is never written twice, and lines are dropped (counted) until a new one
   * opens, tried every {@link #RETRY_NANOS}.
   */
  private void failed(String what, IOException e) {
    dropped.add(unflushed); // in the writer's buffer, never to reach the file
    unflushed = 0;
    LogWriter broken = out;
    out = null;
    if (broken != null) {
      broken.abandon(); // flushing it again could write its bytes twice
    }
    LOG.warn(
        "cannot {} the access log {}: {}; dropping lines, retrying in {} s",
        what,
        target,
        e.toString(),
        RETRY_NANOS / 1_000_000_000L);
    failedAtNanos = System.nanoTime();
  }

  private void retryAfterFailure() {
    try {
      out = writerFor(target);
      LOG.info("access log {} writable again", target);
    } catch (IOException e) {
      failedAtNanos = System.nanoTime();
    }
  }

  private void flush() {
    try {
      if (out != null) {
        out.flush();
        written.add(unflushed); // counted once the file has them, not when buffered
        unflushed = 0;
      }
    } catch (IOException e) {
      failed("flush", e);
    }
  }

  private void reopenNow() {
    if (!(target instanceof AccessLogTarget.File)) {
      return;
    }
    flush();
    closeWriter();
    try {
      out = writerFor(target);
      LOG.info("access log reopened at {}", ((AccessLogTarget.File) target).path());
    } catch (IOException e) {
      LOG.error("cannot reopen the access log; dropping lines until the next reopen", e);
    }
  }

  private void closeWriter() {
    if (out == null) {
      return;
    }
    try {
      if (target instanceof AccessLogTarget.File) {
        out.close();
      } else {
        out.flush();
      }
    } catch (IOException e) {
      LOG.debug("closing the access log", e);
    }
    out = null;
  }

  /** The buffered writer and the stream under it, so that a failed one can be dropped unflushed. */
  private static final class LogWriter extends java.io.BufferedWriter {
    private final OutputStream stream;
    private final boolean ours;

    LogWriter(OutputStream stream, boolean ours) {
      super(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 64 * 1024);
      this.stream = stream;
      this.ours = ours;
    }

    /** Closes the file without writing the buffer (which may be partly written already). */
    void abandon() {
      if (ours) {
        try {
          stream.close();
        } catch (IOException e) {
          LOG.debug("closing a failed access log", e);
        }
      }
    }
  }

  private static LogWriter writerFor(AccessLogTarget target) throws IOException {
    OutputStream stream =
        switch (target) {
          case AccessLogTarget.Stdout s -> new FileOutputStream(FileDescriptor.out);
          case AccessLogTarget.File f ->
              Files.newOutputStream(
                  f.path(),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.APPEND);
        };
    return new LogWriter(stream, target instanceof AccessLogTarget.File);
  }

  /** Writes what is queued and stops (waits up to two seconds). */
  @Override
  public void close() {
    while (!queue.offer(STOP)) {
      queue.poll(); // full: the oldest line makes room for the stop
      dropped.increment();
    }
    try {
      writerThread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
