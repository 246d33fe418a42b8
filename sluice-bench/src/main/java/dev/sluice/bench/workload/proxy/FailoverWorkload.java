package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.ClusterSetup;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxySetup;
import dev.sluice.bench.proxy.ProxyStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 8: an upstream dies under load and comes back. N echo upstreams (4), each a JVM of its own,
 * sit behind the proxy in one round-robin cluster with active TCP checks, passive ejection and
 * connect retries configured alike in both arms; C clients (200) each run a request/response loop:
 * connect, R exchanges of a small verified message (10), close, again. At {@code --kill-at-ms} (3
 * s) the harness kills upstream u0 with SIGKILL: the kernel closes its sockets, so the pairs on it
 * break and new connects to its port are refused. At {@code --restore-at-ms} (6 s) a fresh upstream
 * binds the same port. The load stops by itself at {@code --duration-ms} (10 s).
 *
 * <p>What is measured: every request's outcome and latency at the client, by phase (before the
 * kill, during the outage, after the restore); when the proxy took u0 out and put it back, in the
 * proxy's own view (polled); and when the restored upstream got its first proxied bytes, at the
 * upstream itself.
 */
public final class FailoverWorkload extends ProxyWorkload {
  static final String UPSTREAMS = "upstreams";
  static final String CLIENTS = "clients";
  static final String REQUESTS_PER_CONNECTION = "requests-per-connection";
  static final String SIZE = "size";
  static final String WARMUP_MS = "warmup-ms";
  static final String KILL_AT_MS = "kill-at-ms";
  static final String RESTORE_AT_MS = "restore-at-ms";
  static final String DURATION_MS = "duration-ms";
  static final String INTERVAL_MS = "check-interval-ms";
  static final String CHECK_TIMEOUT_MS = "check-timeout-ms";
  static final String RISE = "rise";
  static final String FALL = "fall";
  static final String RETRIES = "retries";
  static final String PASSIVE = "passive-failures";
  static final String READ_TIMEOUT_MS = "read-timeout-ms";

  /** The client's param: the phase bounds, as the harness measured them (nanoTime). */
  static final String KILL_NANOS = "killNanos";

  static final String GONE_NANOS = "goneNanos";

  static final String RESTORE_NANOS = "restoreNanos";

  /** The upstream that is killed and restored. */
  static final int VICTIM = 0;

  /** How often the harness asks the proxy for the victim's state. */
  static final Duration POLL = Duration.ofMillis(25);

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "requestsFailed",
              Unit.COUNT,
              "requests that got no complete echo, all kinds (the three below), whole run"),
          new Field(
              "failedMidConnection",
              Unit.COUNT,
              "a request after the first on its connection broke (EOF, reset or read timeout):"
                  + " the killed upstream's pairs, which no proxy can move"),
          new Field(
              "failedNewAfterKill",
              Unit.COUNT,
              "a connection opened after u0's process was gone (its sockets closed) failed before"
                  + " any response: the proxy found no live upstream for it, what retries and"
                  + " redispatch should hide (ideally 0)"),
          new Field(
              "failedBeforeResponse",
              Unit.COUNT,
              "the first request of a connection got no echo (the new-after-kill ones, and those"
                  + " the proxy had connected to u0, or to its accept queue, before it was gone)"),
          new Field(
              "ejectMs",
              Unit.MILLIS,
              "from the kill (SIGKILL sent) to u0 not taking new connections in the proxy's"
                  + " own view: Sluice's /metrics.json state, HAProxy's show stat status, polled"
                  + " every 25 ms"),
          new Field(
              "restoreMs",
              Unit.MILLIS,
              "from the new u0's bind to the first proxied bytes it reads (at the upstream itself;"
                  + " health checks carry no bytes): arm-neutral"),
          new Field(
              "p99DuringUs", Unit.MICROS, "99th percentile of requests started in the outage"),
          new Field(
              "failedConnect",
              Unit.COUNT,
              "the client could not connect to the proxy at all (a connect error)"),
          new Field(
              "requestsTimedOut",
              Unit.COUNT,
              "of the failed requests: no echo within --read-timeout-ms (counted in their kind)"),
          new Field(
              "failedAfterRestore",
              Unit.COUNT,
              "of the failed requests: started after the new u0 bound"),
          new Field(
              "lastFailureMs",
              Unit.MILLIS,
              "from the kill to the moment the last failed request failed: how long clients saw"
                  + " failures (client side, arm-neutral)"),
          new Field(
              "proxyRestoreMs",
              Unit.MILLIS,
              "from the new u0's bind to u0 up again in the proxy's own view (polled as ejectMs)"),
          new Field("requestsOk", Unit.COUNT, "requests echoed and verified, whole run"),
          new Field("requestsPerSec", Unit.COUNT, "requestsOk over the measured duration"),
          new Field(
              "p50BeforeUs",
              Unit.MICROS,
              "median request latency before the kill (first request of a connection: from"
                  + " before its connect)"),
          new Field("p99BeforeUs", Unit.MICROS, "99th percentile before the kill"),
          new Field("p50DuringUs", Unit.MICROS, "median of requests started in the outage"),
          new Field("p50AfterUs", Unit.MICROS, "median of requests started after the restore"),
          new Field("p99AfterUs", Unit.MICROS, "99th percentile after the restore"),
          new Field(
              "outageMs",
              Unit.MILLIS,
              "from the kill to the new u0's bind, as it happened (the schedule says"
                  + " restore-at - kill-at)"),
          new Field(
              "dyingMs",
              Unit.MILLIS,
              "from SIGKILL to u0's process reaped: while it dies, its listener may still complete"
                  + " handshakes that end in resets"));

  @Override
  public String name() {
    return "failover";
  }

  @Override
  public String summary() {
    return "an upstream of 4 killed (SIGKILL) and restored under 200 request/response clients;"
        + " failed requests, p99 by phase, time to eject and restore";
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(UPSTREAMS, "4", "echo upstreams in the cluster, each its own JVM; u0 is killed"),
        new Option(CLIENTS, "200", "clients, each its own thread, one request in flight each"),
        new Option(
            REQUESTS_PER_CONNECTION,
            "10",
            "requests per client connection before it closes and opens the next"),
        new Option(SIZE, "64", "bytes per request (echoed and verified)"),
        new Option(WARMUP_MS, "2000", "the same load with every upstream up, before measuring"),
        new Option(KILL_AT_MS, "3000", "when u0 is killed (SIGKILL), from the measured start"),
        new Option(RESTORE_AT_MS, "6000", "when a new u0 binds the same port"),
        new Option(DURATION_MS, "10000", "when the clients stop (each finishes its request)"),
        new Option(INTERVAL_MS, "500", "active TCP check interval, both arms"),
        new Option(CHECK_TIMEOUT_MS, "250", "one check's timeout, both arms"),
        new Option(RISE, "2", "passes that bring an upstream up, both arms"),
        new Option(FALL, "3", "failures that take it down, both arms"),
        new Option(
            RETRIES,
            "3",
            "connect retries on another upstream (HAProxy retries N, option redispatch 1;"
                + " Sluice retries.tries N+1)"),
        new Option(
            PASSIVE,
            "3",
            "consecutive failed connects that take an upstream out (Sluice passive.failures,"
                + " HAProxy observe layer4 error-limit N on-error mark-down); 0: checks only"),
        new Option(
            READ_TIMEOUT_MS, "5000", "a request without its echo for this long fails (timed out)"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    int upstreams = atLeast(params, UPSTREAMS, 2);
    if (upstreams > 16) {
      throw new IllegalArgumentException("--upstreams must be at most 16 (one JVM each)");
    }
    int clients = atLeast(params, CLIENTS, 1);
    if (clients > 512) {
      throw new IllegalArgumentException("--clients must be at most 512 (one thread each)");
    }
    atLeast(params, REQUESTS_PER_CONNECTION, 1);
    int size = atLeast(params, SIZE, 1);
    if (size > ProxyStream.SEQUENTIAL_MAX) {
      throw new IllegalArgumentException(
          "--size must be at most " + ProxyStream.SEQUENTIAL_MAX + " (one message in flight)");
    }
    params.count(WARMUP_MS);
    int kill = atLeast(params, KILL_AT_MS, 1);
    int restore = atLeast(params, RESTORE_AT_MS, 1);
    int duration = atLeast(params, DURATION_MS, 1);
    if (!(kill < restore && restore < duration)) {
      throw new IllegalArgumentException(
          "--kill-at-ms < --restore-at-ms < --duration-ms, got "
              + kill
              + ", "
              + restore
              + ", "
              + duration);
    }
    atLeast(params, INTERVAL_MS, 10);
    atLeast(params, CHECK_TIMEOUT_MS, 1);
    atLeast(params, RISE, 1);
    atLeast(params, FALL, 1);
    params.count(RETRIES);
    params.count(PASSIVE);
    atLeast(params, READ_TIMEOUT_MS, 1);
    return FIELDS;
  }

  /** Sluice and HAProxy: the Netty proxy has one upstream and no health checks. */
  @Override
  public Set<Impl> arms(Params params) {
    Set<Impl> arms = EnumSet.copyOf(ProxyArms.available());
    arms.remove(Impl.NETTY);
    arms.remove(Impl.NETTY_EPOLL);
    return arms;
  }

  @Override
  int peakConnections(Params params) {
    return params.intCount(CLIENTS);
  }

  @Override
  String model(Impl impl, Params params) {
    int interval = params.intCount(INTERVAL_MS);
    int fall = params.intCount(FALL);
    int rise = params.intCount(RISE);
    int passive = params.intCount(PASSIVE);
    int clients = params.intCount(CLIENTS);
    int upstreams = params.intCount(UPSTREAMS);
    String eject =
        passive > 0
            ? "ejected after "
                + passive
                + " refused connects of real traffic (the time a few new connections take to"
                + " arrive), at the latest by the active check within fall x interval = "
                + fall * interval
                + " ms"
            : "ejected by the active check within fall x interval = "
                + fall * interval
                + " ms (between "
                + (fall - 1) * interval
                + " and "
                + fall * interval
                + " ms after u0's sockets closed, which is dyingMs after the kill"
                + (impl == Impl.SLUICE
                    ? "; Sluice spreads each interval by up to 5% either way"
                    : "")
                + "; the polling adds up to "
                + POLL.toMillis()
                + " ms)";
    return "predicted: the requests in flight on u0's pairs break at the kill (about "
        + Math.max(1, clients / upstreams)
        + " connections, one failed request each: failedMidConnection); a new connection sent to"
        + " the dead u0 is refused at once (loopback) and retried on another upstream, unseen"
        + " (failedNewAfterKill 0 while retries > 0); "
        + eject
        + "; back within rise x interval = "
        + rise * interval
        + " ms of the restore"
        + (impl == Impl.HAPROXY ? " (option redispatch 1: every retry on another server)" : "");
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>(super.conditions(params));
    conditions.put(
        "measured",
        "the clients' requests and the proxy's view of u0; load client and echo upstreams are"
            + " plain JDK");
    conditions.put(
        "processes",
        params.string(UPSTREAMS)
            + " echo upstreams (one JVM each), the proxy and the load client; u0 is killed with"
            + " SIGKILL (the kernel closes its sockets: FIN, or RST where bytes were unread) and a"
            + " new JVM binds its port at --restore-at-ms; upstream ports lie below the kernel's"
            + " ephemeral range");
    conditions.put(
        "cluster",
        "both arms: roundrobin; TCP check every "
            + params.string(INTERVAL_MS)
            + " ms, timeout "
            + params.string(CHECK_TIMEOUT_MS)
            + " ms, rise "
            + params.string(RISE)
            + ", fall "
            + params.string(FALL)
            + "; "
            + params.string(RETRIES)
            + " connect retries, each on another upstream; passive ejection after "
            + params.string(PASSIVE)
            + " failed connects in a row (Sluice: passive {failures, backoff = maxBackoff = the"
            + " check interval}, then the check brings it back; HAProxy: observe layer4"
            + " error-limit N on-error mark-down); connect timeout 5 s");
    conditions.put(
        "haproxy",
        conditions.get("haproxy")
            + "; backend: balance roundrobin, retries N, option redispatch 1, timeout check,"
            + " server uI ADDR check inter rise fall [observe layer4 error-limit on-error"
            + " mark-down]");
    conditions.put(
        "netty",
        "not an arm of failover: NettyProxy forwards to one upstream and has no health checks");
    conditions.put(
        "netty-epoll",
        "not an arm of failover: NettyProxy forwards to one upstream and has no health checks");
    return conditions;
  }

  @Override
  ChildProgram client() {
    return new FailoverLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    ClusterSetup cluster =
        new ClusterSetup(
            FailoverRun.upstreamAddresses(params.intCount(UPSTREAMS)),
            Duration.ofMillis(params.intCount(INTERVAL_MS)),
            Duration.ofMillis(params.intCount(CHECK_TIMEOUT_MS)),
            params.intCount(RISE),
            params.intCount(FALL),
            params.intCount(RETRIES),
            params.intCount(PASSIVE),
            ProxySetup.freeLoopbackAddress());
    try (FailoverRun run = FailoverRun.start(context, impl, cluster, peakConnections(params))) {
      run.awaitClient("READY");
      run.awaitAllUp();
      StatePoller poller = new StatePoller(run);
      long t0 = System.nanoTime();
      Thread polling = Thread.ofPlatform().name("failover-poll").daemon(true).start(poller);
      try {
        run.client.send(Message.of("GO", "phase", "measure", "t0", t0));
        sleepUntil(t0 + params.intCount(KILL_AT_MS) * 1_000_000L);
        ChildProcess.Killed killed = run.upstreams[VICTIM].kill();
        long killNanos = killed.signalled();
        poller.killed(killNanos);
        ChildProcess replacement = run.startReplacement(VICTIM);
        sleepUntil(t0 + params.intCount(RESTORE_AT_MS) * 1_000_000L);
        replacement.send(Message.of("GO"));
        long restoreNanos =
            replacement.await("LISTENING", context.stepTimeout()).longValue("nanos");
        poller.restored(restoreNanos);
        run.awaitClient("FINISHED");
        run.client.send(
            Message.of(
                "GO",
                "phase",
                "phases",
                KILL_NANOS,
                killNanos,
                GONE_NANOS,
                killed.gone(),
                RESTORE_NANOS,
                restoreNanos));
        Message done = run.awaitClient("DONE");
        replacement.send(Message.of("STATS"));
        Message stats = replacement.await("STATS", context.stepTimeout());
        poller.stop();
        polling.join();
        Map<String, Double> values = Steps.numbers(done, FIELDS);
        values.put("outageMs", (restoreNanos - killNanos) / 1e6);
        values.put("dyingMs", (killed.gone() - killNanos) / 1e6);
        long firstBytes = stats.longValue("firstBytesNanos");
        if (firstBytes != 0) {
          values.put("restoreMs", (firstBytes - restoreNanos) / 1e6);
        }
        if (poller.ejectedNanos != 0) {
          values.put("ejectMs", (poller.ejectedNanos - killNanos) / 1e6);
        }
        if (poller.upAgainNanos != 0) {
          values.put("proxyRestoreMs", (poller.upAgainNanos - restoreNanos) / 1e6);
        }
        Map<String, Double> ordered = new LinkedHashMap<>();
        for (Field field : FIELDS) {
          if (values.containsKey(field.name())) {
            ordered.put(field.name(), values.get(field.name()));
          }
        }
        Map<String, String> notes = new LinkedHashMap<>(ProxyArms.notes(impl));
        notes.put("model", model(impl, params));
        if (poller.error != null) {
          notes.put("pollError", poller.error);
        }
        return RunResult.of(ordered, Steps.integrityOk(done), Steps.integrityDetail(done))
            .withNotes(notes);
      } finally {
        poller.stop();
      }
    }
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      Thread.sleep(Duration.ofNanos(left));
    }
  }

  /**
   * Asks the proxy every {@link #POLL} whether u0 takes new connections, and keeps the first moment
   * it did not after the kill and the first moment it did after the restore (each the moment the
   * answer arrived).
   */
  private static final class StatePoller implements Runnable {
    private final FailoverRun run;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicLong killNanos = new AtomicLong();
    private final AtomicLong restoreNanos = new AtomicLong();
    volatile long ejectedNanos;
    volatile long upAgainNanos;
    volatile String error;

    StatePoller(FailoverRun run) {
      this.run = run;
    }

    void killed(long nanos) {
      killNanos.set(nanos);
    }

    void restored(long nanos) {
      restoreNanos.set(nanos);
    }

    void stop() {
      stopped.set(true);
    }

    @Override
    public void run() {
      while (!stopped.get()) {
        long next = System.nanoTime() + POLL.toNanos();
        try {
          boolean up = ProxyArms.upstreamUp(run.proxy, run.cluster, VICTIM);
          long now = System.nanoTime();
          long kill = killNanos.get();
          long restore = restoreNanos.get();
          if (kill != 0 && ejectedNanos == 0 && !up) {
            ejectedNanos = now;
          }
          if (restore != 0 && upAgainNanos == 0 && up && now > restore) {
            upAgainNanos = now;
          }
        } catch (IOException e) {
          if (error == null) {
            error = e.toString();
          }
        } catch (InterruptedException e) {
          return;
        }
        LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
      }
    }
  }

  /** What one client thread saw: latencies of good requests and the failures, by start time. */
  private static final class Record {
    long[] starts = new long[1024];
    long[] latencies = new long[1024];
    int ok;
    final List<long[]> failures = new ArrayList<>(); // {start, kind, timedOut, seen} (nanos)

    void ok(long start, long latency) {
      if (ok == starts.length) {
        starts = Arrays.copyOf(starts, ok * 2);
        latencies = Arrays.copyOf(latencies, ok * 2);
      }
      starts[ok] = start;
      latencies[ok] = latency;
      ok++;
    }

    String firstFailure;

    void failed(long start, int kind, IOException error) {
      failures.add(
          new long[] {
            start, kind, error instanceof SocketTimeoutException ? 1 : 0, System.nanoTime()
          });
      if (firstFailure == null) {
        firstFailure = KINDS[kind] + ": " + error;
      }
    }
  }

  private static final int CONNECT = 0;
  private static final int BEFORE_RESPONSE = 1;
  private static final int MID_CONNECTION = 2;
  private static final String[] KINDS = {"connect", "before any response", "mid-connection"};

  /** The load client: C threads, each connecting, doing R requests and closing, until the end. */
  private static final class FailoverLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      Params params = control.params();
      LoadSupport load = LoadSupport.start(control);
      int clients = params.intCount(CLIENTS);
      Record[] warmup =
          load(load, params, System.nanoTime() + params.count(WARMUP_MS) * 1_000_000L);
      for (Record r : warmup) {
        if (!r.failures.isEmpty()) {
          throw new IllegalStateException(
              "a request failed in the warm-up, with every upstream up ("
                  + Arrays.stream(warmup).mapToInt(x -> x.failures.size()).sum()
                  + " failures; first: "
                  + r.firstFailure
                  + ")");
        }
      }
      control.send("READY");
      long t0 = control.await("GO").longValue("t0");
      long end = t0 + params.count(DURATION_MS) * 1_000_000L;
      Record[] records = load(load, params, end);
      control.send("FINISHED");
      Message phases = control.await("GO");
      long kill = phases.longValue(KILL_NANOS);
      long gone = phases.longValue(GONE_NANOS);
      long restore = phases.longValue(RESTORE_NANOS);
      load.report(control, "DONE", summary(records, t0, end, kill, gone, restore, clients));
      control.await("EXIT");
    }

    private static Record[] load(LoadSupport load, Params params, long end) throws Exception {
      int clients = params.intCount(CLIENTS);
      int perConnection = params.intCount(REQUESTS_PER_CONNECTION);
      int size = params.intCount(SIZE);
      int readTimeout = params.intCount(READ_TIMEOUT_MS);
      Record[] records = new Record[clients];
      LoadSupport.parallel(
          clients,
          clients,
          false,
          i -> {
            Record record = new Record();
            records[i] = record;
            while (System.nanoTime() < end) {
              connection(load, record, perConnection, size, readTimeout, end);
            }
          });
      return records;
    }

    /** One connection: up to {@code perConnection} requests; a failed one ends it. */
    private static void connection(
        LoadSupport load, Record record, int perConnection, int size, int readTimeout, long end)
        throws InterruptedException {
      long start = System.nanoTime();
      ProxyStream stream;
      try {
        stream = load.open();
        stream.readTimeout(readTimeout);
      } catch (IOException e) {
        record.failed(start, CONNECT, e);
        return;
      }
      try {
        for (int r = 0; r < perConnection && (r == 0 || System.nanoTime() < end); r++) {
          long t = r == 0 ? start : System.nanoTime();
          try {
            stream.exchange(size);
          } catch (IOException e) {
            record.failed(t, r == 0 ? BEFORE_RESPONSE : MID_CONNECTION, e);
            return;
          }
          record.ok(t, System.nanoTime() - t);
        }
      } finally {
        load.check(stream);
        try {
          stream.close();
        } catch (IOException ignored) {
          // closing a connection the proxy may have reset
        }
      }
    }

    private static Map<String, Object> summary(
        Record[] records, long t0, long end, long kill, long gone, long restore, int clients) {
      long[][] phase = new long[3][];
      int[] counts = new int[3];
      long ok = 0;
      for (Record r : records) {
        ok += r.ok;
        for (int i = 0; i < r.ok; i++) {
          counts[phaseOf(r.starts[i], kill, restore)]++;
        }
      }
      for (int p = 0; p < 3; p++) {
        phase[p] = new long[counts[p]];
        counts[p] = 0;
      }
      long[] kinds = new long[3];
      long timedOut = 0;
      long afterRestore = 0;
      long newAfterKill = 0;
      long lastFailure = 0;
      for (Record r : records) {
        for (int i = 0; i < r.ok; i++) {
          int p = phaseOf(r.starts[i], kill, restore);
          phase[p][counts[p]++] = r.latencies[i];
        }
        for (long[] f : r.failures) {
          kinds[(int) f[1]]++;
          timedOut += f[2];
          if (f[0] >= restore) {
            afterRestore++;
          }
          if (f[0] >= gone && f[1] != MID_CONNECTION) {
            newAfterKill++;
          }
          lastFailure = Math.max(lastFailure, f[3]);
        }
      }
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("requestsFailed", kinds[0] + kinds[1] + kinds[2]);
      fields.put("failedMidConnection", kinds[MID_CONNECTION]);
      fields.put("failedBeforeResponse", kinds[BEFORE_RESPONSE]);
      fields.put("failedNewAfterKill", newAfterKill);
      fields.put("failedConnect", kinds[CONNECT]);
      fields.put("requestsTimedOut", timedOut);
      fields.put("failedAfterRestore", afterRestore);
      if (lastFailure != 0) {
        fields.put("lastFailureMs", String.format(Locale.ROOT, "%.3f", (lastFailure - kill) / 1e6));
      }
      fields.put("requestsOk", ok);
      fields.put("requestsPerSec", String.format(Locale.ROOT, "%.1f", ok / ((end - t0) / 1e9)));
      String[] names = {"Before", "During", "After"};
      for (int p = 0; p < 3; p++) {
        long[] sorted = phase[p];
        Arrays.sort(sorted);
        if (sorted.length > 0) {
          fields.put("p50" + names[p] + "Us", percentileMicros(sorted, 0.50));
          fields.put("p99" + names[p] + "Us", percentileMicros(sorted, 0.99));
        }
      }
      fields.put("clients", clients);
      return fields;
    }

    private static int phaseOf(long start, long kill, long restore) {
      return start < kill ? 0 : start < restore ? 1 : 2;
    }

    private static String percentileMicros(long[] sorted, double q) {
      return String.format(Locale.ROOT, "%.1f", sorted[(int) ((sorted.length - 1) * q)] / 1e3);
    }
  }
}
