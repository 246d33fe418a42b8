package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.TlsVersion;
import dev.sluice.bench.workload.handshake.HandshakeClient;
import dev.sluice.bench.workload.handshake.HandshakeKind;
import dev.sluice.bench.workload.handshake.HandshakeTally;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * TLS handshakes per second at the proxy's TLS-terminating listener, full and resumed (issue 16):
 * {@code --parallel} connections at a time, each handshakes, echoes a few patterned bytes through
 * the proxy and the upstream, checks them and closes, for {@code --seconds} per kind. The harness
 * reads the proxy's CPU time from {@code /proc/PID/stat} around each phase: on a machine with few
 * cores the client and the upstream compete with the proxy for CPU, so the rate is shared while the
 * proxy's CPU per handshake is its own. The load client is Netty on OpenSSL (BoringSSL), the
 * cheapest client a JVM has, and counts which handshakes resumed ({@link HandshakeTally}).
 */
public final class HandshakeWorkload extends ProxyWorkload {
  static final String MODE = "mode";
  static final String SECONDS = "seconds";
  static final String WARMUP_SECONDS = "warmup-seconds";
  static final String PARALLEL = "parallel";
  static final String CLIENT_THREADS = "client-threads";
  static final String MESSAGE = "message";

  /** What a TLS 1.3 resumption offered as psk_dhe_ke (BoringSSL's only mode) costs a server. */
  private static final String RESUMED_WORK =
      "a ticket decrypted and, in TLS 1.3 (psk_dhe_ke), still an X25519 exchange; no signature";

  /** The most bytes a connection echoes: one read in every arm. */
  static final int MAX_MESSAGE = 1024;

  @Override
  public String name() {
    return "handshake";
  }

  @Override
  public String summary() {
    return "TLS handshakes per second at the proxy, full and resumed; proxy CPU per handshake";
  }

  @Override
  boolean tlsOnly() {
    return true;
  }

  @Override
  List<Option> ownOptions() {
    return List.of(
        new Option(MODE, "both", "full, resumed, or both (full first, in one proxy process)"),
        new Option(CERT, "ecdsa", "the certificate's key: ecdsa (P-256) or rsa (2048 bits)"),
        new Option(SECONDS, "5", "how long each kind is measured"),
        // The proxy's C2 compiler took a third of its CPU 9-14 s into a run (handshakes on the
        // OpenSSL engine, ECDSA); 20 s of each kind let it finish first, most of the time.
        new Option(
            WARMUP_SECONDS,
            "20",
            "handshakes of each kind for this long in a warm-up round (repeated while a JVM"
                + " proxy's compilers are busy)"),
        new Option(PARALLEL, "16", "connections at once (each slot one after another)"),
        new Option(CLIENT_THREADS, "2", "the load client's event-loop threads"),
        new Option(MESSAGE, "16", "bytes each connection echoes through the proxy (max 1024)"));
  }

  @Override
  public List<Field> fields(Params params) {
    validateCommon(params);
    List<HandshakeKind> kinds = HandshakeKind.select(params.string(MODE));
    atLeast(params, SECONDS, 1);
    params.count(WARMUP_SECONDS);
    int parallel = atLeast(params, PARALLEL, 1);
    if (parallel > 1024) {
      throw new IllegalArgumentException("--parallel must be at most 1024");
    }
    atLeast(params, CLIENT_THREADS, 1);
    int message = atLeast(params, MESSAGE, 1);
    if (message > MAX_MESSAGE) {
      throw new IllegalArgumentException("--message must be at most " + MAX_MESSAGE + " bytes");
    }
    List<Field> fields = new ArrayList<>();
    for (HandshakeKind kind : kinds) {
      String k = kind.id();
      fields.add(
          new Field(
              k + "PerSec",
              Unit.COUNT,
              k + " handshakes per second (each: connect, handshake, echo, close)"));
      fields.add(
          new Field(
              k + "CpuUsPerHandshake",
              Unit.MICROS,
              "the proxy's CPU time (/proc/PID/stat) per " + k + " handshake"));
      fields.add(
          new Field(
              k + "ClientCpuUsPerHandshake",
              Unit.MICROS,
              "the load client's CPU time per " + k + " handshake (it shares the cores)"));
      fields.add(new Field(k + "Handshakes", Unit.COUNT, k + " handshakes measured"));
      fields.add(
          new Field(
              k + "WarmupHandshakes",
              Unit.COUNT,
              k + " handshakes of the warm-up (a JVM arm's JIT compiles its TLS code meanwhile)"));
      fields.add(
          new Field(
              k + "CompilerCpuShare",
              Unit.RATIO,
              "share of the proxy's CPU its JIT compiler threads used while "
                  + k
                  + " handshakes were measured (0 for HAProxy)"));
    }
    fields.add(CompilerWarmUp.ROUNDS);
    return List.copyOf(fields);
  }

  @Override
  int peakConnections(Params params) {
    return params.intCount(PARALLEL);
  }

  @Override
  String model(Impl impl, Params params) {
    String key = keyType(params).id().equals("rsa") ? "an RSA-2048 signature" : "a P-256 signature";
    return switch (impl) {
      case SLUICE ->
          "jdk".equals(ProxyWorkload.tlsEngine(params))
              ? "predicted: full: an X25519 exchange and "
                  + key
                  + " in the JDK's SSLEngine (Java big-integer and EC code): issue 16 measured"
                  + " about 3.8x HAProxy's CPU per handshake with openssl s_time; resumed: "
                  + RESUMED_WORK
              : "predicted: full: an X25519 exchange and "
                  + key
                  + " in C (OpenSSL 3 through the OpenSSL engine, which tls.engine auto takes"
                  + " where libssl.so.3 loads; --engine jdk for the JDK's SSLEngine), plus the"
                  + " engine's upcalls; resumed: "
                  + RESUMED_WORK;
      case NETTY ->
          "predicted: the JDK's SSLEngine as Sluice's, plus SslHandler; close to Sluice per"
              + " handshake";
      case NETTY_OPENSSL, NETTY_EPOLL, HAPROXY ->
          "predicted: full: an X25519 exchange and "
              + key
              + " in C ("
              + (impl == Impl.HAPROXY ? "OpenSSL 3" : "BoringSSL")
              + "); resumed: "
              + RESUMED_WORK;
      default -> throw Impl.unsupported(name(), impl);
    };
  }

  @Override
  String cipherSuiteCondition(Params params, TlsVersion version) {
    return version == TlsVersion.TLS_1_2
        ? keyType(params).tls12CipherSuite() + " (the only suite the load client enables)"
        : "the server's pick among BoringSSL's TLS 1.3 suites (BoringSSL has no setting for them);"
            + " each arm's suites note says what it chose";
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>(super.conditions(params));
    conditions.put(
        "measured",
        "the proxy process; the load client is Netty on OpenSSL ("
            + HandshakeClient.library()
            + ", groups X25519 then P-256), the echo upstream plain JDK, each a process of its own");
    conditions.put(
        "cores",
        Runtime.getRuntime().availableProcessors()
            + ": the client and the upstream compete with the proxy for them, so"
            + " handshakes per second are shared; the proxy's CPU per handshake is its own, the"
            + " fairer figure");
    return conditions;
  }

  @Override
  ChildProgram client() {
    return new HandshakeLoad();
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Params params = context.params();
    List<HandshakeKind> kinds = HandshakeKind.select(params.string(MODE));
    try (ProxyRun run = ProxyRun.start(context, impl, peakConnections(params))) {
      CompilerWarmUp.Warmed warmed = CompilerWarmUp.warmUp(run);
      Message ready = warmed.lastReady();
      Map<String, Double> values = new LinkedHashMap<>();
      List<String> failures = new ArrayList<>();
      Map<String, String> notes =
          new LinkedHashMap<>(ProxyArms.notes(impl, tls(params), tlsEngine(params)));
      for (HandshakeKind kind : kinds) {
        CompilerWarmUp.Reading before = CompilerWarmUp.Reading.of(run.proxy);
        Duration clientBefore = run.client.cpuTime();
        run.go(kind.id());
        HandshakeTally tally = HandshakeTally.from(run.awaitClient("DONE"));
        CompilerWarmUp.Reading measured = CompilerWarmUp.Reading.of(run.proxy).since(before);
        Duration cpu = measured.cpu();
        Duration clientCpu = run.client.cpuTime().minus(clientBefore);
        String k = kind.id();
        long n = tally.handshakes();
        values.put(k + "PerSec", n / (tally.nanos() / 1e9));
        values.put(k + "CpuUsPerHandshake", cpu.toNanos() / 1e3 / n);
        values.put(k + "ClientCpuUsPerHandshake", clientCpu.toNanos() / 1e3 / n);
        values.put(k + "Handshakes", (double) n);
        values.put(k + "WarmupHandshakes", (double) ready.longValue(k));
        values.put(k + "CompilerCpuShare", measured.compilerShare());
        notes.put(k + "Suites", tally.suites());
        notes.put(k + "Groups", tally.groups());
        notes.put(k + "Resumed", tally.resumed() + " of " + n);
        String failure = tally.failure();
        if (failure != null) {
          failures.add(failure);
        }
      }
      values.put(CompilerWarmUp.ROUNDS.name(), (double) warmed.rounds());
      notes.put("model", model(impl, params));
      return RunResult.of(values, failures.isEmpty(), String.join("; ", failures)).withNotes(notes);
    }
  }

  /** The load client: warm-up rounds (each of every kind), then each kind when told. */
  private static final class HandshakeLoad implements ChildProgram {
    @Override
    public void run(ChildControl control) throws Exception {
      control.await("GO");
      Params params = control.params();
      List<HandshakeKind> kinds = HandshakeKind.select(params.string(MODE));
      BenchTls tls =
          BenchTls.from(params.with(TlsVersion.OPTION, params.string(ProxyWorkload.TLS_VERSION)));
      int parallel = params.intCount(PARALLEL);
      try (HandshakeClient client =
          HandshakeClient.create(
              new InetSocketAddress("127.0.0.1", params.intCount(ProxyWorkload.PROXY_PORT)),
              tls.certificate(),
              tls.version(),
              keyType(params),
              parallel,
              params.intCount(CLIENT_THREADS),
              params.intCount(MESSAGE))) {
        long warmup = Duration.ofSeconds(params.count(WARMUP_SECONDS)).toNanos();
        Map<String, Long> warmed = new LinkedHashMap<>();
        String phase;
        do {
          for (HandshakeKind kind : kinds) {
            // With no warm-up the phase is over at once: no connection is made.
            HandshakeTally warm = client.run(kind, parallel, warmup, Long.MAX_VALUE);
            if (warm.failed() > 0) {
              throw new IllegalStateException("warm-up: " + warm.failure());
            }
            warmed.merge(kind.id(), warm.handshakes(), Long::sum);
          }
          if (kinds.contains(HandshakeKind.RESUMED)) {
            // Resumed slots need a session each before they are measured, one young enough to
            // last through the measured phases, whatever the warm-up.
            client.renewSessions(parallel);
          }
          control.send("READY", warmed);
          phase = control.await("GO").field("phase");
        } while (phase.equals("warm"));
        for (HandshakeKind kind : kinds) {
          if (kind != kinds.getFirst()) {
            phase = control.await("GO").field("phase");
          }
          if (!phase.equals(kind.id())) {
            throw new IllegalStateException("expected phase " + kind.id() + ", got " + phase);
          }
          long duration = Duration.ofSeconds(params.count(SECONDS)).toNanos();
          control.send("DONE", client.run(kind, parallel, duration, Long.MAX_VALUE).fields());
        }
        control.await("EXIT");
      }
    }
  }
}
