package dev.sluice.bench;

import dev.sluice.bench.cli.BenchCommandParser;
import dev.sluice.bench.cli.BenchRequest;
import dev.sluice.bench.cli.Usage;
import dev.sluice.bench.harness.Harness;
import dev.sluice.bench.harness.Json;
import dev.sluice.bench.harness.Report;
import dev.sluice.bench.workload.Workloads;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmarks' command (the launcher runs it for {@code ./sluice demo} and {@code ./sluice
 * bench}): with no arguments or {@code demo} the demonstration, {@code bench WORKLOAD ...} one
 * benchmark, {@code help} the usage. Results go to stdout, progress to stderr.
 */
public final class Main {
  /** Every run verified. */
  public static final int OK = 0;

  /** An integrity failure or a failed run. */
  public static final int FAILED = 1;

  /** The command line was wrong. */
  public static final int USAGE = 2;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command in {@code args}; returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      return new Demo(out, err).run();
    }
    List<String> rest = List.of(args).subList(1, args.length);
    return switch (args[0]) {
      case "help", "-h", "--help" -> help(rest, out, err);
      case "bench" -> bench(rest, out, err);
      case "demo" -> new Demo(out, err).run();
      default -> usageError("unknown command '" + args[0] + "'", err);
    };
  }

  private static int help(List<String> rest, PrintStream out, PrintStream err) {
    if (rest.isEmpty()) {
      out.print(Usage.text());
      return OK;
    }
    try {
      out.print(Usage.workload(Workloads.get(rest.getFirst())));
      return OK;
    } catch (IllegalArgumentException e) {
      return usageError(e.getMessage(), err);
    }
  }

  private static int bench(List<String> rest, PrintStream out, PrintStream err) {
    if (rest.isEmpty() || List.of("help", "-h", "--help").contains(rest.getFirst())) {
      return help(rest.isEmpty() ? rest : rest.subList(1, rest.size()), out, err);
    }
    BenchRequest request;
    try {
      request = BenchCommandParser.parse(rest);
    } catch (IllegalArgumentException e) {
      return usageError(e.getMessage(), err);
    }
    Harness harness =
        new Harness(
            request.workload(),
            request.params(),
            request.impls(),
            request.runs(),
            request.stepTimeout(),
            err::println);
    err.println(
        "["
            + request.workload().name()
            + "] "
            + request.runs()
            + " run(s) per arm; JVM flags of every child: "
            + String.join(" ", harness.jvmFlags()));
    try {
      Report report = harness.run();
      out.print(report.table());
      if (request.json()) {
        out.println(report.json());
      }
      return report.integrityOk() ? OK : FAILED;
    } catch (Exception e) {
      return failed(request, e, out, err);
    }
  }

  private static int failed(BenchRequest request, Exception e, PrintStream out, PrintStream err) {
    err.println("error: " + request.workload().name() + " failed: " + e.getMessage());
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    if (request.json()) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("workload", request.workload().name());
      json.put("integrity", "FAIL");
      json.put("error", String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
      out.println(Json.write(json));
    }
    return FAILED;
  }

  private static int usageError(String message, PrintStream err) {
    err.println("error: " + message);
    err.println();
    err.print(Usage.text());
    return USAGE;
  }
}
