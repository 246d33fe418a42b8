package dev.sluice.proxy.cli;

import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ProxyConfig;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.runtime.ProxyService;
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
    version = "sluice 0.1.0",
    description = {
      "A TCP/TLS proxy whose memory tracks the bytes in flight, not the connections.",
      "With no command, runs the proxy on an embedded demo configuration."
    },
    subcommands = {Main.Run.class, Main.Check.class, Main.Demo.class, Main.Bench.class},
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

  /** Runs the proxy. */
  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description = {
        "Runs the proxy: a configuration file, or the embedded demo without --config.",
        "SIGHUP or a change of the file (or of a certificate it names) reloads it;",
        "SIGTERM stops accepting, drains open connections, then stops."
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
        service = ProxyService.start(proxyConfig, config, PairObserver.NONE);
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
      banner(out, service, demo != null);
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
            listener.boundAddress(),
            l.tls() == null ? "TCP" : l.tls().getClass().getSimpleName().toLowerCase());
      }
      if (demo) {
        out.println("Both forward to a built-in echo upstream. Try:");
        out.println("  nc 127.0.0.1 7000");
        out.println("  openssl s_client -connect 127.0.0.1:7443 -servername localhost -quiet");
        out.println(
            "Run your own: ./sluice run --config FILE (reference: sluice-proxy/config/reference.yaml)");
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

  /** Listed for the help only: the launcher runs it from the benchmark module. */
  @Command(
      name = "demo",
      description =
          "Sluice vs Netty on seed 000's retention and seed 001's big write (run by ./sluice).")
  static final class Demo implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getErr().println("run it through the launcher: ./sluice demo");
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
      spec.commandLine().getErr().println("run it through the launcher: ./sluice bench help");
      return 2;
    }
  }
}
