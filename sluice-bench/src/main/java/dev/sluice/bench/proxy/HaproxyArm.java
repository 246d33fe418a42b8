package dev.sluice.bench.proxy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * How the harness runs HAProxy: Debian's package (installed with {@code apt-get} when it is
 * missing), started in the foreground ({@code -db}: no daemon, no master process, so the process
 * started is the one holding the connections) with a generated configuration: {@code mode tcp},
 * {@code maxconn} sized to the run (global and frontend), {@code nbthread} = the cores, splicing
 * off ({@code nosplice}, and no {@code option splice-*}), the Sluice arm's timeouts (connect 5 s,
 * client and server 1 h), TLS terminated with {@code bind ... ssl crt PEM}, and an admin socket in
 * the run's directory from which {@code show info} reads HAProxy's own pool accounting.
 */
final class HaproxyArm {
  /** Threads HAProxy runs: this machine's cores, as HAProxy's own default does. */
  static final int THREADS = Runtime.getRuntime().availableProcessors();

  private static final String ADMIN_SOCKET = "admin.sock";
  private static final DebianTool TOOL = new DebianTool("haproxy", "haproxy");
  private static Path executable;

  private HaproxyArm() {}

  /**
   * The haproxy binary, installed first with {@code apt-get install -y haproxy} when there is none.
   *
   * @throws IOException when it is missing and cannot be installed, saying what was tried
   */
  static synchronized Path executable() throws IOException, InterruptedException {
    if (executable == null) {
      executable = TOOL.findOrInstall();
    }
    return executable;
  }

  /** The first line of {@code haproxy -v}, e.g. {@code HAProxy version 2.6.12-1+deb12u3 ...}. */
  static String version(Path haproxy) throws IOException, InterruptedException {
    return DebianTool.firstLine(haproxy, "-v");
  }

  /** The configuration for {@code setup}; its admin socket lives in {@code workDir}. */
  static String config(ProxySetup setup, Path workDir) {
    return config(setup, workDir, null);
  }

  /**
   * The configuration for {@code setup}; with a {@code cluster}, its upstreams replace the setup's
   * one, with the same balancing, checks, passive ejection and retries as the Sluice arm's.
   */
  static String config(ProxySetup setup, Path workDir, ClusterSetup cluster) {
    int maxconn = setup.maxConnections();
    StringBuilder cfg = new StringBuilder();
    cfg.append("global\n")
        .append("    maxconn ")
        .append(maxconn)
        .append('\n')
        .append("    nbthread ")
        .append(THREADS)
        .append('\n')
        .append("    nosplice\n")
        .append("    stats socket ")
        .append(workDir.resolve(ADMIN_SOCKET))
        .append(" mode 600 level admin\n")
        .append("defaults\n")
        .append("    mode tcp\n")
        .append("    timeout connect 5s\n")
        .append("    timeout client 1h\n")
        .append("    timeout server 1h\n")
        .append("frontend bench\n")
        .append("    bind ")
        .append(ProxySetup.hostPort(setup.listen()));
    if (setup.tls() != null) {
      cfg.append(" ssl crt ").append(setup.tls().combined());
    }
    cfg.append('\n')
        .append("    maxconn ")
        .append(maxconn)
        .append('\n')
        .append("    default_backend echo\n")
        .append("backend echo\n");
    if (cluster == null) {
      cfg.append("    server echo ").append(ProxySetup.hostPort(setup.upstream())).append('\n');
    } else {
      clusterConfig(cfg, cluster);
    }
    return cfg.toString();
  }

  /**
   * The HTTP configuration for {@code setup}: {@code mode http} and HAProxy's defaults otherwise:
   * keep-alive on both sides, {@code http-reuse safe}, no {@code option forwardfor}, and no {@code
   * maxconn}, so HAProxy derives it from its descriptor limit (9986 with 20,000 files). A {@code
   * maxconn} sized to the run (64 + 16) made HAProxy open a new upstream connection for every
   * request: with few descriptors allowed, the ones a run uses exceed the share above which it
   * keeps no idle server connection ({@code tune.pool-low-fd-ratio}). Also {@code nbthread} = the
   * cores, the admin socket of the TCP arm, and the timeouts of every HTTP arm ({@link
   * HttpSetup#IDLE_TIMEOUT}; {@code timeout http-keep-alive} falls back to {@code timeout client}).
   */
  static String httpConfig(HttpSetup setup, Path workDir) {
    return "global\n"
        + "    nbthread "
        + THREADS
        + "\n    stats socket "
        + workDir.resolve(ADMIN_SOCKET)
        + " mode 600 level admin\n"
        + "defaults\n"
        + "    mode http\n"
        + "    timeout connect 5s\n"
        + "    timeout client "
        + HttpSetup.IDLE_TIMEOUT
        + "\n    timeout server "
        + HttpSetup.IDLE_TIMEOUT
        + "\nfrontend bench\n"
        + "    bind "
        + ProxySetup.hostPort(setup.listen())
        + "\n    default_backend web\n"
        + "backend web\n"
        + "    server web "
        + ProxySetup.hostPort(setup.upstream())
        + "\n";
  }

  private static void clusterConfig(StringBuilder cfg, ClusterSetup cluster) {
    cfg.append("    balance roundrobin\n")
        .append("    retries ")
        .append(cluster.retries())
        .append('\n')
        // Every retry on another server, as Sluice retries (the default, -1, only the last one).
        .append("    option redispatch 1\n")
        .append("    timeout check ")
        .append(cluster.timeout().toMillis())
        .append("ms\n");
    for (int i = 0; i < cluster.upstreams().size(); i++) {
      cfg.append("    server ")
          .append(ClusterSetup.serverName(i))
          .append(' ')
          .append(ProxySetup.hostPort(cluster.upstreams().get(i)))
          .append(" check inter ")
          .append(cluster.interval().toMillis())
          .append("ms rise ")
          .append(cluster.rise())
          .append(" fall ")
          .append(cluster.fall());
      if (cluster.passiveFailures() > 0) {
        cfg.append(" observe layer4 error-limit ")
            .append(cluster.passiveFailures())
            .append(" on-error mark-down");
      }
      cfg.append('\n');
    }
  }

  /** The command that runs HAProxy in the foreground with {@code config}. */
  static List<String> command(Path haproxy, Path config) {
    return List.of(haproxy.toString(), "-f", config.toString(), "-db");
  }

  /**
   * The bytes HAProxy's memory pools hold in objects in use ({@code PoolUsed_bytes} of {@code show
   * info} on the admin socket): its own count of its sessions, streams, connections and buffers.
   * OpenSSL's allocations are not in it.
   */
  static long poolUsedBytes(ProxyProcess proxy) throws IOException {
    String info = adminCommand(proxy.workDir().resolve(ADMIN_SOCKET), "show info");
    for (String line : info.split("\n")) {
      if (line.startsWith("PoolUsed_bytes:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    throw new IOException("HAProxy's show info has no PoolUsed_bytes line:\n" + info);
  }

  /**
   * Whether server {@code name} of the backend is up, from {@code show stat} on the admin socket:
   * its status is {@code UP} (also {@code UP 1/3}: up, with checks failing but fewer than fall),
   * not {@code DOWN}, {@code DOWN 1/2} (coming back) or {@code MAINT}.
   */
  static boolean serverUp(ProxyProcess proxy, String name) throws IOException {
    String stat = adminCommand(proxy.workDir().resolve(ADMIN_SOCKET), "show stat");
    String[] lines = stat.split("\n");
    if (lines.length == 0 || !lines[0].startsWith("# ")) {
      throw new IOException("HAProxy's show stat has no header:\n" + stat);
    }
    List<String> header = List.of(lines[0].substring(2).split(",", -1));
    int px = header.indexOf("pxname");
    int sv = header.indexOf("svname");
    int status = header.indexOf("status");
    for (String line : lines) {
      String[] cells = line.split(",", -1);
      if (cells.length > status && cells[px].equals("echo") && cells[sv].equals(name)) {
        return cells[status].startsWith("UP");
      }
    }
    throw new IOException("HAProxy's show stat has no server echo/" + name + ":\n" + stat);
  }

  private static String adminCommand(Path socket, String command) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      StringBuilder out = new StringBuilder();
      while (channel.read(buffer) >= 0) {
        buffer.flip();
        out.append(StandardCharsets.US_ASCII.decode(buffer));
        buffer.clear();
      }
      return out.toString();
    }
  }
}
