package dev.sluice.bench.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How the harness starts the Sluice proxy: a child JVM {@code java FLAGS -cp CLASSPATH
 * dev.sluice.proxy.cli.Main run --config FILE}, where FLAGS are the lines of {@code
 * sluice-proxy/jvm.options} (one flag a line, {@code #} comments; {@link #FALLBACK_FLAGS} while it
 * does not exist), CLASSPATH is what the sluice-proxy module's own build made (its jar in {@code
 * sluice-proxy/target} and the runtime dependencies its build copies to {@code
 * sluice-proxy/target/lib}, as {@code ./sluice} runs it; without that directory, the jar alone),
 * and FILE is the YAML written by {@link #yaml}. The proxy is not on the bench's class path, so its
 * logging and other dependencies stay out of the other arms. Both files are found in the project
 * this harness was built from ({@link #projectRoot}); the reactor builds sluice-proxy before
 * sluice-bench, so they exist when the bench's tests run.
 */
final class SluiceArm {
  /** The proxy's entry point. */
  static final String MAIN = "dev.sluice.proxy.cli.Main";

  /** The flags while {@code sluice-proxy/jvm.options} is absent. */
  static final List<String> FALLBACK_FLAGS = List.of("-XX:+UseSerialGC", "-Xmn8m");

  private static final String MAIN_ENTRY = MAIN.replace('.', '/') + ".class";

  private SluiceArm() {}

  /**
   * The root of the project whose sluice-bench holds this class: the harness runs from {@code
   * ROOT/sluice-bench/target/classes} (tests) or {@code ROOT/sluice-bench/target/sluice-bench.jar}
   * (./sluice). Null when it runs from anywhere else.
   */
  static Path projectRoot() {
    try {
      Path code =
          Path.of(SluiceArm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path root = code.getParent().getParent().getParent();
      return Files.isRegularFile(root.resolve("sluice-proxy").resolve("pom.xml")) ? root : null;
    } catch (URISyntaxException | NullPointerException | SecurityException e) {
      return null;
    }
  }

  /** Whether the proxy's source has its entry point: then the arm must be buildable. */
  static boolean mainInSource() {
    Path root = projectRoot();
    return root != null
        && Files.isRegularFile(
            root.resolve("sluice-proxy/src/main/java").resolve(MAIN.replace('.', '/') + ".java"));
  }

  /** Null when the arm can run; otherwise why not (the proxy has not landed or was not built). */
  static String unavailableReason() {
    Path root = projectRoot();
    if (root == null) {
      return "the harness does not run from a project build (no sluice-proxy beside sluice-bench)";
    }
    try {
      classPath();
      return null;
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  /**
   * The sluice-proxy jar and its runtime dependencies, as its build left them.
   *
   * @throws IOException saying what is missing
   */
  static List<String> classPath() throws IOException {
    Path root = projectRoot();
    if (root == null) {
      throw new IOException("no project build beside this harness");
    }
    Path target = root.resolve("sluice-proxy").resolve("target");
    Path jar = null;
    if (Files.isDirectory(target)) {
      try (Stream<Path> files = Files.list(target)) {
        // The newest such jar: a renamed build output may leave an older one behind.
        List<Path> jars =
            files
                .filter(SluiceArm::isMainJar)
                .sorted(Comparator.comparing(SluiceArm::modified).reversed())
                .toList();
        for (Path candidate : jars) {
          if (holdsMain(candidate)) {
            jar = candidate;
            break;
          }
        }
      }
    }
    if (jar == null) {
      throw new IOException(
          mainInSource()
              ? "sluice-proxy is not built: no jar with " + MAIN + " in sluice-proxy/target"
              : MAIN + " is not in sluice-proxy yet (the proxy has not landed)");
    }
    List<String> entries = new ArrayList<>();
    entries.add(jar.toString());
    Path lib = target.resolve("lib"); // absent only if the jar carries its dependencies itself
    if (Files.isDirectory(lib)) {
      try (Stream<Path> files = Files.list(lib)) {
        files
            .filter(p -> p.getFileName().toString().endsWith(".jar"))
            .sorted()
            .forEach(p -> entries.add(p.toString()));
      }
    }
    return entries;
  }

  private static FileTime modified(Path path) {
    try {
      return Files.getLastModifiedTime(path);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  private static boolean isMainJar(Path path) {
    String name = path.getFileName().toString();
    return name.endsWith(".jar")
        && !name.endsWith("-tests.jar")
        && !name.endsWith("-sources.jar")
        && !name.endsWith("-javadoc.jar");
  }

  private static boolean holdsMain(Path jarFile) {
    try (JarFile jar = new JarFile(jarFile.toFile())) {
      return jar.getEntry(MAIN_ENTRY) != null;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The environment variable naming another flags file to run both JVM proxy arms with: how a
   * flag's effect is measured (the same workload with and without it), never a default.
   */
  static final String JVM_OPTIONS_OVERRIDE = "SLUICE_BENCH_PROXY_JVM_OPTIONS";

  /**
   * The file named by {@link #JVM_OPTIONS_OVERRIDE}, else {@code sluice-proxy/jvm.options}, or null
   * when that does not exist (yet).
   */
  static Path jvmOptionsFile() {
    String override = System.getenv(JVM_OPTIONS_OVERRIDE);
    if (override != null && !override.isBlank()) {
      Path file = Path.of(override);
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(JVM_OPTIONS_OVERRIDE + ": no such file: " + file);
      }
      return file;
    }
    Path root = projectRoot();
    if (root == null) {
      return null;
    }
    Path options = root.resolve("sluice-proxy").resolve("jvm.options");
    return Files.isRegularFile(options) ? options : null;
  }

  /** The JVM flags of both JVM proxy arms: {@code jvm.options}'s, or the fallback. */
  static List<String> jvmFlags() {
    Path file = jvmOptionsFile();
    if (file == null) {
      return FALLBACK_FLAGS;
    }
    try {
      return parseJvmOptions(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Where the flags came from, for the report. */
  static String jvmFlagsSource() {
    Path file = jvmOptionsFile();
    if (file == null) {
      return "sluice-proxy/jvm.options does not exist: the fallback "
          + String.join(" ", FALLBACK_FLAGS);
    }
    return file.endsWith(Path.of("sluice-proxy", "jvm.options"))
        ? "sluice-proxy/jvm.options"
        : file + " (from " + JVM_OPTIONS_OVERRIDE + ", not the shipped flags)";
  }

  /** One flag a line; blank lines and everything from a {@code #} on are ignored. */
  static List<String> parseJvmOptions(String text) {
    List<String> flags = new ArrayList<>();
    for (String line : text.split("\n")) {
      int hash = line.indexOf('#');
      String flag = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (!flag.isEmpty()) {
        flags.add(flag);
      }
    }
    return List.copyOf(flags);
  }

  /** The proxy's configuration for {@code setup}. */
  static String yaml(ProxySetup setup) {
    return yaml(setup, null);
  }

  /**
   * The proxy's configuration for {@code setup}; with a {@code cluster}, its upstreams replace the
   * setup's one, with the cluster's balancing, checks, passive ejection, retries and an admin
   * listener.
   */
  static String yaml(ProxySetup setup, ClusterSetup cluster) {
    StringBuilder yaml = new StringBuilder();
    yaml.append("listeners:\n")
        .append("  - name: bench\n")
        .append("    address: ")
        .append(ProxySetup.hostPort(setup.listen()))
        .append('\n')
        .append("    cluster: echo\n");
    if (setup.tls() != null) {
      yaml.append("    tls: {certificates: [{cert: ")
          .append(plainScalar(setup.tls().certificate()))
          .append(", key: ")
          .append(plainScalar(setup.tls().key()))
          .append("}]");
      if (setup.tlsEngine() != null) {
        yaml.append(", engine: ").append(setup.tlsEngine());
      }
      yaml.append("}\n");
    }
    yaml.append("clusters:\n").append("  - name: echo\n");
    if (cluster == null) {
      yaml.append("    upstreams: [{address: ")
          .append(ProxySetup.hostPort(setup.upstream()))
          .append("}]\n");
    } else {
      clusterYaml(yaml, cluster);
    }
    yaml.append("timeouts: {connect: 5s, idle: 1h, handshake: 10s}\n")
        .append("buffers: {readBufferSize: ")
        .append(size(setup.readBufferSize()))
        .append(", maxBytesInFlight: ")
        .append(size(ProxySetup.MAX_BYTES_IN_FLIGHT))
        .append("}\n");
    if (setup.splice() != null) {
      yaml.append("splice: ").append(setup.splice()).append('\n');
    }
    if (dev.sluice.bench.harness.JvmFlags.transport() != null) {
      yaml.append("transport: ").append(dev.sluice.bench.harness.JvmFlags.transport().id());
      yaml.append('\n');
    }
    if (cluster != null) {
      yaml.append(adminYaml(cluster));
    }
    return yaml.toString();
  }

  /**
   * The proxy's configuration for an HTTP run: one {@code protocol: http} listener whose one
   * cluster is the upstream, its HTTP options at their defaults (so {@code forwardedFor: replace}:
   * it sets X-Forwarded-For, -Proto and -Host on every request), buffers at their defaults, and the
   * keep-alive and idle timeouts of every HTTP arm.
   */
  static String httpYaml(HttpSetup setup) {
    StringBuilder yaml = new StringBuilder();
    yaml.append("listeners:\n")
        .append("  - name: bench\n")
        .append("    address: ")
        .append(ProxySetup.hostPort(setup.listen()))
        .append('\n')
        .append("    protocol: http\n")
        .append("    cluster: web\n")
        .append("clusters:\n")
        .append("  - name: web\n")
        .append("    upstreams: [{address: ")
        .append(ProxySetup.hostPort(setup.upstream()))
        .append("}]\n")
        .append("timeouts: {connect: 5s, idle: ")
        .append(HttpSetup.IDLE_TIMEOUT)
        .append(", keepAlive: ")
        .append(HttpSetup.IDLE_TIMEOUT)
        .append("}\n");
    if (dev.sluice.bench.harness.JvmFlags.transport() != null) {
      yaml.append("transport: ").append(dev.sluice.bench.harness.JvmFlags.transport().id());
      yaml.append('\n');
    }
    return yaml.toString();
  }

  private static void clusterYaml(StringBuilder yaml, ClusterSetup cluster) {
    yaml.append("    upstreams:\n");
    for (var upstream : cluster.upstreams()) {
      yaml.append("      - {address: ").append(ProxySetup.hostPort(upstream)).append("}\n");
    }
    String interval = millis(cluster.interval());
    yaml.append("    balance: roundrobin\n")
        .append("    healthCheck: {type: tcp, interval: ")
        .append(interval)
        .append(", timeout: ")
        .append(millis(cluster.timeout()))
        .append(", rise: ")
        .append(cluster.rise())
        .append(", fall: ")
        .append(cluster.fall())
        .append("}\n")
        // The backoff is one check interval: once it is over, the active check alone decides when
        // the upstream is back (rise passes), as HAProxy's on-error mark-down does.
        .append("    passive: {failures: ")
        .append(cluster.passiveFailures())
        .append(", backoff: ")
        .append(interval)
        .append(", maxBackoff: ")
        .append(interval)
        .append("}\n")
        .append("    retries: {tries: ")
        .append(cluster.retries() + 1)
        .append(", within: 5s}\n");
  }

  /** The admin listener's line for {@code cluster}. */
  static String adminYaml(ClusterSetup cluster) {
    return "admin: {address: " + ProxySetup.hostPort(cluster.admin()) + "}\n";
  }

  private static String millis(Duration duration) {
    return duration.toMillis() + "ms";
  }

  private static final HttpClient ADMIN_CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * Whether upstream {@code index} of {@code cluster} is {@code up} in the proxy's {@code
   * /metrics.json} (not {@code down} or {@code ejected}).
   */
  static boolean upstreamUp(ClusterSetup cluster, int index)
      throws IOException, InterruptedException {
    HttpResponse<String> reply =
        ADMIN_CLIENT.send(
            HttpRequest.newBuilder(
                    URI.create("http://" + ProxySetup.hostPort(cluster.admin()) + "/metrics.json"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String address = ProxySetup.hostPort(cluster.upstreams().get(index));
    Matcher m =
        Pattern.compile("\"address\":\"" + Pattern.quote(address) + "\",\"state\":\"(\\w+)\"")
            .matcher(reply.body());
    if (reply.statusCode() != 200 || !m.find()) {
      throw new IOException(
          "the proxy's /metrics.json (" + reply.statusCode() + ") has no state for " + address);
    }
    return m.group(1).equals("up");
  }

  /** The command that starts the proxy with {@code config}. */
  static List<String> command(Path config) throws IOException {
    return command(null, config);
  }

  /**
   * The command that starts the proxy: {@code java FLAGS -cp CLASSPATH MAIN}, or with a {@code
   * launcher} (a program taking the same arguments as {@code ./sluice}, such as the release
   * archive's {@code bin/sluice}) that program; then {@code run --config FILE}, or nothing when
   * {@code config} is null (the embedded demo).
   */
  static List<String> command(Path launcher, Path config) throws IOException {
    List<String> command = new ArrayList<>();
    if (launcher != null) {
      command.add(launcher.toString());
    } else {
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmFlags());
      command.add("-cp");
      command.add(String.join(java.io.File.pathSeparator, classPath()));
      command.add(MAIN);
    }
    if (config != null) {
      command.addAll(List.of("run", "--config", config.toString()));
    }
    return command;
  }

  /** A byte count the way the configuration writes one: {@code 64KiB}, {@code 256MiB}. */
  static String size(long bytes) {
    if (bytes > 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "GiB";
    }
    if (bytes > 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "MiB";
    }
    if (bytes > 0 && bytes % (1L << 10) == 0) {
      return bytes / (1L << 10) + "KiB";
    }
    return Long.toString(bytes);
  }

  /** A path as an unquoted YAML scalar, which the temporary paths used here always are. */
  private static String plainScalar(Path path) {
    String text = path.toString();
    if (!text.matches("[A-Za-z0-9/._-]+")) {
      throw new IllegalArgumentException(
          "the temporary path "
              + text
              + " needs quoting in YAML; set java.io.tmpdir to a plain one");
    }
    return text;
  }
}
