package dev.sluice.bench.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * How the harness runs nginx (Debian's package, installed with {@code apt-get} when it is missing),
 * both as the HTTP workloads' nginx arm and as their upstream: in the foreground ({@code daemon
 * off}, with its master process: the process started is the master, the connections are held by its
 * workers, its children), on a generated configuration with its pid file, temporary directories and
 * error log ({@code -e stderr}) in the run's directory, never the system's.
 */
final class NginxArm {
  private static final DebianTool TOOL = new DebianTool("nginx", "nginx");
  private static Path executable;

  private NginxArm() {}

  /** The nginx binary, installed first with {@code apt-get install -y nginx} when there is none. */
  static synchronized Path executable() throws IOException, InterruptedException {
    if (executable == null) {
      executable = TOOL.findOrInstall();
    }
    return executable;
  }

  /** Whether nginx is installed here (without installing it). */
  static boolean installed() {
    return TOOL.find() != null;
  }

  /** What {@code nginx -v} prints, e.g. {@code nginx version: nginx/1.22.1}. */
  static String version() throws IOException, InterruptedException {
    return DebianTool.firstLine(executable(), "-v");
  }

  /**
   * The reverse proxy as its operators run it: {@code worker_processes auto} (one a core), an
   * {@code upstream} block with {@code keepalive 64} (idle upstream connections kept per worker)
   * and {@code proxy_http_version 1.1; proxy_set_header Connection "";} so those connections are
   * reused; its defaults otherwise (response buffering on, no X-Forwarded-For added), except {@code
   * keepalive_requests}, raised on both sides from 1000 so that no side closes a connection after
   * its thousandth request (the other arms never do), and the keep-alive timeouts of every HTTP
   * arm.
   */
  static String proxyConfig(HttpSetup setup) {
    return preamble("auto", setup.maxFiles())
        + "  upstream web {\n"
        + "    server "
        + ProxySetup.hostPort(setup.upstream())
        + ";\n    keepalive 64;\n"
        + "    keepalive_timeout "
        + HttpSetup.IDLE_TIMEOUT
        + ";\n    keepalive_requests 1000000;\n"
        + "  }\n"
        + "  server {\n"
        + "    listen "
        + ProxySetup.hostPort(setup.listen())
        + ";\n    location / {\n"
        + "      proxy_pass http://web;\n"
        + "      proxy_http_version 1.1;\n"
        + "      proxy_set_header Connection \"\";\n"
        + "    }\n"
        + "  }\n"
        + "}\n";
  }

  /**
   * The upstream every arm forwards to: one worker answering every request with {@code 200} and
   * {@code body} ({@code return 200 "BODY"}, {@code Content-Type: text/plain}), from memory.
   *
   * @param body letters and digits only (it is written inside a quoted nginx string)
   */
  static String upstreamConfig(InetSocketAddress listen, String body, int maxFiles) {
    if (!body.matches("[A-Za-z0-9]+")) {
      throw new IllegalArgumentException("the upstream's body must be letters and digits");
    }
    return preamble("1", maxFiles)
        + "  default_type text/plain;\n"
        + "  server {\n"
        + "    listen "
        + ProxySetup.hostPort(listen)
        + ";\n    location / {\n"
        + "      return 200 \""
        + body
        + "\";\n"
        + "    }\n"
        + "  }\n"
        + "}\n";
  }

  private static String preamble(String workers, int maxFiles) {
    return "worker_processes "
        + workers
        + ";\nworker_rlimit_nofile "
        + maxFiles
        + ";\ndaemon off;\n"
        + "pid nginx.pid;\n"
        + "error_log stderr warn;\n"
        + "events {\n"
        + "  worker_connections "
        + maxFiles
        + ";\n}\n"
        + "http {\n"
        + "  access_log off;\n"
        + "  keepalive_timeout "
        + HttpSetup.IDLE_TIMEOUT
        + ";\n  keepalive_requests 1000000;\n"
        + "  client_body_temp_path client_body_temp;\n"
        + "  proxy_temp_path proxy_temp;\n"
        + "  fastcgi_temp_path fastcgi_temp;\n"
        + "  uwsgi_temp_path uwsgi_temp;\n"
        + "  scgi_temp_path scgi_temp;\n";
  }

  /** The command that runs nginx in the foreground with {@code config}, prefix {@code workDir}. */
  static List<String> command(Path nginx, Path config, Path workDir) {
    return List.of(nginx.toString(), "-p", workDir + "/", "-e", "stderr", "-c", config.toString());
  }
}
