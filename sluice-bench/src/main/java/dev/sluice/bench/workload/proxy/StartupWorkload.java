package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildFailedException;
import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.ResidentSet;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.proxy.EchoUpstream;
import dev.sluice.bench.proxy.Jcmd;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyProcess;
import dev.sluice.bench.proxy.ProxySetup;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A proxy's start and its fixed memory, measured from outside: the harness starts the proxy process
 * as it ships (Sluice: {@code java} with {@code jvm.options}, or {@code --launcher PATH}; on the
 * embedded demo, or with {@code --config bench} on the proxy workloads' one-listener configuration;
 * HAProxy: its arm's configuration) and tries a real echo through it every few milliseconds from
 * the moment it started the process. {@code firstEchoMs} is when the first one came back right; the
 * resident set is read from {@code /proc} at {@code --after-ms} after the start with no traffic
 * since that echo.
 */
public final class StartupWorkload implements Workload {
  static final String CONFIG = "config";
  static final String LAUNCHER = "launcher";
  static final String AFTER_MS = "after-ms";
  static final String MAXCONN = "maxconn";

  /** The launcher option's default: the JVM directly, with jvm.options. */
  static final String JAVA = "java";

  /** Bytes of each probe echo: the project's payload pattern, so a wrong byte is caught. */
  static final int PROBE_BYTES = 1024;

  /** The demo's fixed ports: plain, TLS and admin listener. */
  private static final List<Integer> DEMO_PORTS = List.of(7000, 7443, 9000);

  private static final Duration PROBE_INTERVAL = Duration.ofMillis(5);
  private static final List<String> PEER_MEMORY_FLAGS = JvmFlags.maxHeapAndDirectMiB(256, 256);

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "firstEchoMs",
              Unit.MILLIS,
              "from starting the process to the first echo through it coming back right"),
          new Field(
              "rssBytes",
              Unit.BYTES,
              "VmRSS at --after-ms after the start (the process and its descendants)"),
          new Field("rssAnonBytes", Unit.BYTES, "RssAnon of the same reading: private memory"),
          new Field(
              "rssFileBytes", Unit.BYTES, "RssFile of the same reading: pages of mapped files"),
          new Field("threads", Unit.COUNT, "threads at the reading"),
          new Field(
              "classesLoaded",
              Unit.COUNT,
              "JVM: classes loaded at the reading (jcmd PerfCounter.print, after the RSS)"),
          new Field(
              "sharedClasses",
              Unit.COUNT,
              "JVM: of those, loaded from the CDS or AOT archive rather than parsed"));

  @Override
  public String name() {
    return "startup";
  }

  @Override
  public String summary() {
    return "a proxy's start: time to its first echo, and its resident set 10 s after, idle";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(
            CONFIG,
            "demo",
            "Sluice's configuration: demo (./sluice with no arguments, on 127.0.0.1:7000) or bench"
                + " (the proxy workloads' one listener to an echo upstream, as HAProxy runs)"),
        new Option(
            LAUNCHER,
            JAVA,
            "how Sluice is started: java (with jvm.options and the module's build), or a program"
                + " taking ./sluice's arguments, e.g. an archive's bin/sluice"),
        new Option(AFTER_MS, "10000", "when the resident set is read, after the start"),
        new Option(
            MAXCONN,
            "9016",
            "HAProxy's maxconn (it sizes tables by it): proxyidle's 9000 pairs + 16 by default"));
  }

  @Override
  public List<Field> fields(Params params) {
    config(params);
    launcher(params);
    if (params.count(AFTER_MS) < 1) {
      throw new IllegalArgumentException("--after-ms must be at least 1");
    }
    ProxyWorkload.atLeast(params, MAXCONN, 1);
    return FIELDS;
  }

  static boolean demo(Params params) {
    return config(params).equals("demo");
  }

  private static String config(Params params) {
    String config = params.string(CONFIG);
    if (!config.equals("demo") && !config.equals("bench")) {
      throw new IllegalArgumentException("--config must be demo or bench, not " + config);
    }
    return config;
  }

  static Path launcher(Params params) {
    String value = params.string(LAUNCHER);
    if (value.equals(JAVA)) {
      return null;
    }
    Path path = Path.of(value).toAbsolutePath();
    if (!Files.isExecutable(path)) {
      throw new IllegalArgumentException("--launcher: not an executable file: " + value);
    }
    return path;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return PEER_MEMORY_FLAGS;
  }

  /** Sluice (once its proxy is built) and HAProxy. */
  @Override
  public Set<Impl> arms(Params params) {
    Set<Impl> arms = EnumSet.noneOf(Impl.class);
    arms.addAll(ProxyArms.available());
    arms.remove(Impl.NETTY);
    arms.remove(Impl.NETTY_EPOLL);
    return arms;
  }

  /** The only child JVM is the echo upstream. */
  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.MEASURED) {
      throw new IllegalStateException("the measured side is the proxy process itself");
    }
    return new EchoUpstream();
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>();
    Path launcher = launcher(params);
    conditions.put(
        "sluice",
        (launcher == null
                ? "java " + String.join(" ", ProxyArms.jvmFlags()) + " -cp sluice-proxy+deps"
                : launcher.toString())
            + (demo(params)
                ? " (no arguments: the embedded demo, probed on 127.0.0.1:7000)"
                : " run --config FILE (one listener to the echo upstream)"));
    conditions.put(
        "haproxy",
        "one listener to the echo upstream, nbthread 2, maxconn "
            + params.string(MAXCONN)
            + ", its defaults otherwise (see proxyidle)");
    conditions.put(
        "probe",
        "every "
            + PROBE_INTERVAL.toMillis()
            + " ms from the process start: connect, "
            + PROBE_BYTES
            + " B of the payload pattern, read the echo back; the start is just before the"
            + " harness starts the process");
    return conditions;
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Upstream upstream =
        startUpstreamUnlessDemo(context, impl == Impl.SLUICE && demo(context.params()));
    try {
      return runOnce(context, impl, upstream);
    } finally {
      if (upstream != null) {
        upstream.process().close();
      }
    }
  }

  /** The echo upstream the one-listener configuration forwards to, and where it listens. */
  private record Upstream(ChildProcess process, InetSocketAddress address) {}

  /** The echo upstream, listening; none for the demo, which has its own. */
  private static Upstream startUpstreamUnlessDemo(RunContext context, boolean demo)
      throws Exception {
    if (demo) {
      for (int port : DEMO_PORTS) {
        refuseIfListening(new InetSocketAddress("127.0.0.1", port));
      }
      return null;
    }
    InetSocketAddress address = ProxySetup.freeLoopbackAddress();
    ChildProcess upstream =
        context.startPeer(
            "upstream", Params.of(Map.of(EchoUpstream.PORT, Integer.toString(address.getPort()))));
    try {
      upstream.await("LISTENING", context.stepTimeout());
      return new Upstream(upstream, address);
    } catch (Exception | Error e) {
      upstream.close();
      throw e;
    }
  }

  private RunResult runOnce(RunContext context, Impl impl, Upstream upstream) throws Exception {
    Params params = context.params();
    Duration timeout = context.stepTimeout();
    ProxySetup setup = null;
    if (upstream != null) {
      setup =
          new ProxySetup(
              ProxySetup.freeLoopbackAddress(),
              upstream.address(),
              null,
              params.intCount(MAXCONN),
              64 * 1024);
    }
    try (ProxyProcess proxy =
        impl == Impl.SLUICE
            ? ProxyArms.startSluice(launcher(params), setup)
            : ProxyArms.start(impl, setup)) {
      long started = proxy.startNanos();
      Probe probe = awaitEcho(proxy, started + timeout.toNanos());
      long readAt = started + Duration.ofMillis(params.count(AFTER_MS)).toNanos();
      long wait = readAt - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(Duration.ofNanos(wait));
      }
      ResidentSet rss = ResidentSet.ofTree(proxy.pid());
      Map<String, Double> values = new LinkedHashMap<>();
      values.put("firstEchoMs", (probe.nanos() - started) / 1e6);
      values.put("rssBytes", (double) rss.vmRssBytes());
      values.put("rssAnonBytes", (double) rss.anonBytes());
      values.put("rssFileBytes", (double) rss.fileBytes());
      values.put("threads", (double) rss.threads());
      if (impl == Impl.SLUICE) {
        classCounts(jvmPid(proxy.pid()), values);
      }
      Map<String, String> notes = new LinkedHashMap<>(ProxyArms.notes(impl));
      notes.put("model", model(impl, upstream == null));
      return RunResult.of(values, probe.failure() == null, probe.failure()).withNotes(notes);
    }
  }

  private static String model(Impl impl, boolean demo) {
    return switch (impl) {
      case SLUICE ->
          "predicted: a JVM's fixed memory (heap touched so far, metaspace and the CDS archive of"
              + " the classes loaded, code cache, thread stacks, malloc arenas, the mapped JVM"
              + " library)"
              + (demo ? ", with the demo's TLS listener, admin listener and access log" : "");
      case HAPROXY -> "predicted: a C process; its pools and tables sized by maxconn";
      default -> throw Impl.unsupported("startup", impl);
    };
  }

  /** The first echo's result: when it came back, and why it was wrong if it was. */
  private record Probe(long nanos, String failure) {}

  /**
   * Tries an echo every few milliseconds until one comes back; a connection refused or reset (the
   * proxy not listening yet, or its upstream not connected) is tried again, wrong bytes are not.
   */
  private static Probe awaitEcho(ProxyProcess proxy, long deadline) throws InterruptedException {
    byte[] sent = new PayloadPattern(0).bytes(0, PROBE_BYTES);
    IOException last = null;
    while (System.nanoTime() < deadline) {
      proxy.checkAlive();
      try (Socket socket = new Socket()) {
        socket.connect(proxy.listenAddress(), 1000);
        socket.setSoTimeout(5000);
        socket.getOutputStream().write(sent);
        byte[] received = readUpTo(socket.getInputStream(), sent.length);
        long now = System.nanoTime();
        if (received.length == sent.length) {
          return new Probe(
              now,
              Arrays.equals(received, sent)
                  ? null
                  : "the first echo differs from what was sent, at byte "
                      + Arrays.mismatch(received, sent));
        }
        last = new IOException("the echo ended after " + received.length + " bytes");
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(PROBE_INTERVAL);
    }
    throw proxy.failure("gave no echo within the step timeout (last: " + last + ")");
  }

  private static byte[] readUpTo(InputStream in, int length) throws IOException {
    byte[] buffer = new byte[length];
    int read = 0;
    while (read < length) {
      int n = in.read(buffer, read, length - read);
      if (n < 0) {
        break;
      }
      read += n;
    }
    return Arrays.copyOf(buffer, read);
  }

  /**
   * The demo listens on fixed ports: another process on the plain one would answer in its place, on
   * any of them the demo would not start.
   */
  private static void refuseIfListening(InetSocketAddress address) {
    try (Socket socket = new Socket()) {
      socket.connect(address, 500);
    } catch (IOException e) {
      return; // nothing listens: the demo can bind it
    }
    throw new ChildFailedException(
        "something already listens on "
            + address.getHostString()
            + ":"
            + address.getPort()
            + ": the demo could not bind it");
  }

  /** The JVM of the process tree: the process itself, or the first descendant that is java. */
  private static long jvmPid(long pid) {
    return ProcessHandle.of(pid).stream()
        .flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
        .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
        .mapToLong(ProcessHandle::pid)
        .findFirst()
        .orElse(pid);
  }

  private static void classCounts(long pid, Map<String, Double> values)
      throws IOException, InterruptedException {
    Map<String, Long> counters = new LinkedHashMap<>();
    for (String line : Jcmd.run(pid, "PerfCounter.print").split("\n")) {
      int eq = line.indexOf('=');
      if (line.startsWith("java.cls.") && eq > 0) {
        counters.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
      }
    }
    long shared = counters.getOrDefault("java.cls.sharedLoadedClasses", 0L);
    long loaded =
        counters.getOrDefault("java.cls.loadedClasses", 0L)
            + shared
            - counters.getOrDefault("java.cls.unloadedClasses", 0L)
            - counters.getOrDefault("java.cls.sharedUnloadedClasses", 0L);
    values.put("classesLoaded", (double) loaded);
    values.put("sharedClasses", (double) shared);
  }
}
