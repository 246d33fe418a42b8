package dev.sluice.proxy.cli;

import dev.sluice.proxy.config.AccessLogTarget;
import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.service.SystemdNotifier;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code sluice} command: runs the proxy (the embedded demo when no configuration is given), or
 * checks a configuration. {@code ./sluice demo} and {@code ./sluice bench} are run by the launcher
 * from the benchmark module.
 */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionLines.class,
    description = {
      "A TCP/TLS proxy whose memory tracks the bytes in flight, not the connections.",
      "With no command, runs the proxy on an embedded demo configuration."
    },
    subcommands = {
      Main.Run.class,
      Main.Check.class,
      Main.Status.class,
      Main.Demo.class,
      Main.Bench.class
    },
    footer = {
      "",
      "Configuration reference: sluice-proxy/config/reference.yaml (every option, commented)."
    })
public final class Main implements Callable<Integer> {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new Main());
  }

  @Override
  public Integer call() throws Exception {
    return new Run().call();
  }

  /** {@code --version}: the release, its commit, the JDK, the transport and the TLS engine. */
  static final class VersionLines implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return dev.sluice.proxy.Version.describe().toArray(String[]::new);
    }
  }

  /** Runs the proxy. */
  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description = {
        "Runs the proxy: a configuration file, or the embedded demo without --config.",
        "SIGHUP or a change of the file (or of a certificate it names) reloads it;",
        "SIGTERM stops accepting, drains open connections, then stops.",
        "Under systemd (Type=notify) it tells $NOTIFY_SOCKET when it is ready, reloading",
        "and stopping, and feeds the watchdog when WatchdogSec= is set."
      })
  static final class Run implements Callable<Integer> {
    @Option(names = "--config", paramLabel = "FILE", description = "The YAML configuration.")
    Path config;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out =
          spec == null ? new PrintWriter(System.out, true) : spec.commandLine().getOut();
      PrintWriter err =
          spec == null ? new PrintWriter(System.err, true) : spec.commandLine().getErr();
      DemoSetup demo = null;
      ProxyConfig proxyConfig;
      try {
        if (config == null) {
          demo = DemoSetup.start();
          proxyConfig = ConfigReader.read(demo.yaml(), "<embedded demo>", demo.dir());
        } else {
          proxyConfig = ConfigReader.read(config);
        }
      } catch (ConfigException e) {
        err.println(e.getMessage());
        return 2;
      }
      ProxyService service;
      try {
        service =
            ProxyService.start(
                proxyConfig, config, PairObserver.NONE, SystemdNotifier.fromEnvironment());
      } catch (ConfigException | java.io.IOException e) {
        err.println("sluice: cannot start: " + e.getMessage());
        if (demo != null) {
          demo.close();
        }
        return 1;
      }
      DemoSetup cleanup = demo;
      Runtime.getRuntime()
          .addShutdownHook(
              Thread.ofPlatform()
                  .name("sluice-shutdown")
                  .unstarted(
                      () -> {
                        service.shutdownGracefully();
                        if (cleanup != null) {
                          cleanup.close();
                        }
                      }));
      // With the access log on stdout, stdout is only the log's: the banner goes to stderr.
      boolean logOnStdout =
          proxyConfig.accessLog() instanceof AccessLogTarget.Stdout && demo == null;
      banner(logOnStdout ? err : out, service, demo != null);
      service.awaitStop();
      return 0;
    }

    private static void banner(PrintWriter out, ProxyService service, boolean demo) {
      out.println(
          "Sluice proxy running"
              + (demo
                  ? " the embedded demo configuration"
                  : " " + service.runtime().config().source()));
      for (var listener : service.runtime().listeners()) {
        ListenerConfig l = listener.config();
        out.printf(
            "  %-10s %-22s %s%n",
            l.name(),
            dev.sluice.proxy.config.Endpoint.format(listener.boundAddress()),
            l.tls() == null ? "TCP" : l.tls().getClass().getSimpleName().toLowerCase());
      }
      if (demo) {
        out.println("Both forward to a built-in echo upstream. Try:");
        out.println("  nc 127.0.0.1 7000");
        out.println("  openssl s_client -connect 127.0.0.1:7443 -servername localhost -quiet");
        out.println(
            "Run your own: ./sluice run --config FILE (reference: sluice-proxy/config/reference.yaml)");
      }
      if (service.admin() != null) {
        String admin = service.admin().addressText();
        out.println("Status page http://" + admin + "/  metrics http://" + admin + "/metrics");
        if (demo) {
          out.println("  ./sluice status     (the runtime tree: loops, listeners, pairs)");
        }
      }
      out.println("Ctrl-C or SIGTERM drains open connections and stops.");
      out.flush();
    }
  }

  /** Validates a configuration. */
  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Validates a configuration: exit 0, or non-zero with every problem found.")
  static final class Check implements Callable<Integer> {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        required = true,
        description = "The YAML configuration.")
    Path config;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      try {
        ProxyConfig read = ConfigReader.read(config);
        spec.commandLine()
            .getOut()
            .printf(
                "%s: ok (%d listeners, %d clusters)%n",
                config, read.listeners().size(), read.clusters().size());
        return 0;
      } catch (ConfigException e) {
        spec.commandLine().getErr().println(e.getMessage());
        return 2;
      }
    }
  }

  /** Prints a running proxy's readiness and runtime tree, from its admin listener. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = {
        "Prints a running proxy's readiness and its runtime tree (loops, pairs, listeners,",
        "upstreams), read from its admin listener. Exit 0 when ready, 1 when not, 2 when",
        "it cannot be reached."
      })
  static final class Status implements Callable<Integer> {
    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT",
        description =
            "The admin listener (default: the one --config names, else ${DEFAULT-VALUE}).",
        defaultValue = "127.0.0.1:9000")
    String admin;

    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "Take the admin address from this configuration.")
    Path config;

    @Option(
        names = "--pairs",
        paramLabel = "N",
        description = "List at most N pairs per loop (default: ${DEFAULT-VALUE}).",
        defaultValue = "1000")
    int pairs;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      String address = admin;
      if (config != null) {
        try {
          ProxyConfig read = ConfigReader.read(config);
          if (read.admin() == null) {
            err.println(config + " has no admin listener (admin: {address: HOST:PORT})");
            return 2;
          }
          address = read.admin().address().toString();
        } catch (ConfigException e) {
          err.println(e.getMessage());
          return 2;
        }
      }
      java.net.http.HttpClient http =
          java.net.http.HttpClient.newBuilder()
              .connectTimeout(java.time.Duration.ofSeconds(3))
              .build();
      try {
        var ready = get(http, "http://" + address + "/ready");
        var dump = get(http, "http://" + address + "/dump?pairs=" + Math.max(0, pairs));
        out.print(ready.body());
        out.print(dump.body());
        out.flush();
        return ready.statusCode() == 200 ? 0 : 1;
      } catch (java.io.IOException e) {
        err.println("sluice: no admin listener answers on " + address + ": " + e);
        return 2;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 2;
      }
    }

    private static java.net.http.HttpResponse<String> get(java.net.http.HttpClient http, String url)
        throws java.io.IOException, InterruptedException {
      return http.send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
              .timeout(java.time.Duration.ofSeconds(10))
              .build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
    }
  }

  /** Listed for the help only: the launcher runs it from the benchmark module. */
  @Command(
      name = "demo",
      description =
          "Sluice vs Netty on seed 000's retention and seed 001's big write (run by ./sluice).")
  static final class Demo implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine()
          .getErr()
          .println("the benchmarks run from a source checkout: ./sluice demo");
      return 2;
    }
  }

  /** Listed for the help only: the launcher runs it from the benchmark module. */
  @Command(
      name = "bench",
      description = "Runs a benchmark: ./sluice bench WORKLOAD [options] (run by ./sluice).")
  static final class Bench implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine()
          .getErr()
          .println("the benchmarks run from a source checkout: ./sluice bench help");
      return 2;
    }
  }
}
