package dev.sluice.bench.proxy;

import dev.sluice.bench.harness.Impl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The HTTP proxy arms and how each is started from the same {@link HttpSetup}: {@code sluice} (an
 * HTTP listener, {@link SluiceArm#httpYaml}), {@code haproxy} ({@code mode http}, {@link
 * HaproxyArm#httpConfig}) and {@code nginx} (a reverse proxy, {@link NginxArm#proxyConfig}), each a
 * process of its own configured in a fresh temporary directory; and the nginx upstream they all
 * forward to ({@link #startUpstream}).
 */
public final class HttpArms {
  private HttpArms() {}

  /** The arms that can run here: Sluice's only once its proxy is built. */
  public static Set<Impl> available() {
    Set<Impl> arms = EnumSet.of(Impl.HAPROXY, Impl.NGINX);
    if (SluiceArm.unavailableReason() == null) {
      arms.add(Impl.SLUICE);
    }
    return arms;
  }

  /** Starts arm {@code impl}'s HTTP proxy for {@code setup}; wait for it with awaitReady. */
  public static ProxyProcess start(Impl impl, HttpSetup setup)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sluice-bench-http-" + impl.id());
    List<String> command;
    boolean jvm = false;
    switch (impl) {
      case SLUICE -> {
        Path config = write(dir, "proxy.yaml", SluiceArm.httpYaml(setup));
        command = SluiceArm.command(config);
        jvm = true;
      }
      case HAPROXY -> {
        Path config = write(dir, "haproxy.cfg", HaproxyArm.httpConfig(setup, dir));
        command = HaproxyArm.command(HaproxyArm.executable(), config);
      }
      case NGINX -> {
        Path config = write(dir, "nginx.conf", NginxArm.proxyConfig(setup));
        command = NginxArm.command(NginxArm.executable(), config, dir);
      }
      default -> throw new IllegalArgumentException("no HTTP proxy arm " + impl.id());
    }
    return ProxyProcess.start(impl, command, jvm, setup.listen(), dir);
  }

  /**
   * Starts the upstream of {@code setup}: nginx, one worker, answering every request with 200 and
   * {@code body}; wait for it with awaitReady.
   */
  public static ProxyProcess startUpstream(HttpSetup setup, String body)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sluice-bench-http-upstream");
    Path config =
        write(dir, "nginx.conf", NginxArm.upstreamConfig(setup.upstream(), body, setup.maxFiles()));
    return ProxyProcess.start(
        Impl.NGINX,
        NginxArm.command(NginxArm.executable(), config, dir),
        false,
        setup.upstream(),
        dir);
  }

  private static Path write(Path dir, String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  /** What the report states about the HTTP arms and their upstream. */
  public static Map<String, String> conditions() {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put(
        "upstream",
        "nginx (Debian's package), worker_processes 1, return 200 with the fixed body, keep-alive"
            + " timeout "
            + HttpSetup.IDLE_TIMEOUT
            + ", keepalive_requests 1000000, no access log: the same process for every arm");
    conditions.put(
        "proxyJvmFlags",
        String.join(" ", SluiceArm.jvmFlags()) + " (from " + SluiceArm.jvmFlagsSource() + ")");
    String reason = SluiceArm.unavailableReason();
    conditions.put(
        "sluice",
        reason == null
            ? "java FLAGS -cp sluice-proxy+deps "
                + SluiceArm.MAIN
                + " run --config FILE: one listener with protocol: http, its http options and"
                + " buffers at their defaults (forwardedFor: replace), timeouts connect 5s, idle"
                + " and keepAlive "
                + HttpSetup.IDLE_TIMEOUT
                + ", no access log"
            : "not run: " + reason);
    conditions.put(
        "haproxy",
        "mode http, its defaults otherwise (keep-alive, http-reuse safe, no option forwardfor),"
            + " nbthread "
            + HaproxyArm.THREADS
            + ", no maxconn (its default, from the descriptor limit: a maxconn sized to the run"
            + " made it open an upstream connection per request), timeout connect 5s, client and"
            + " server "
            + HttpSetup.IDLE_TIMEOUT
            + ", no log, -db (foreground, no master)");
    conditions.put(
        "nginx",
        "reverse proxy: worker_processes auto, upstream block with keepalive 64,"
            + " proxy_http_version 1.1, proxy_set_header Connection \"\", keepalive_timeout "
            + HttpSetup.IDLE_TIMEOUT
            + " both sides, keepalive_requests 1000000 both sides (the default 1000 would close"
            + " connections the other arms keep), access_log off, its defaults otherwise; CPU and"
            + " RSS are the master's plus its workers'");
    return conditions;
  }

  /** What arm {@code impl} says about itself in the report: HAProxy's and nginx's versions. */
  public static Map<String, String> notes(Impl impl) throws IOException, InterruptedException {
    return switch (impl) {
      case HAPROXY -> Map.of("version", HaproxyArm.version(HaproxyArm.executable()));
      case NGINX -> Map.of("version", NginxArm.version());
      default -> Map.of();
    };
  }
}
