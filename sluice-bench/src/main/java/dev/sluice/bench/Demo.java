package dev.sluice.bench;

import dev.sluice.bench.harness.ArmSummary;
import dev.sluice.bench.harness.Harness;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Report;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.workload.Workloads;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The quick side-by-side demonstration {@code ./sluice} runs: seed 000's retention at 1400 B and
 * seed 001's big write of a 256 MiB heap buffer, Sluice vs Netty, with fewer runs than the full
 * benchmark so it ends in a few minutes.
 */
final class Demo {
  static final int RUNS = 3;

  private final PrintStream out;
  private final PrintStream err;

  Demo(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** A headline figure of the summary table. */
  private record Headline(String workload, String field, Unit unit, String meaning) {}

  private static final List<Headline> HEADLINES =
      List.of(
          new Headline("retention", "retainedBytes", Unit.BYTES, "bytes the client keeps"),
          new Headline(
              "retention", "heldBytes", Unit.BYTES, "memory held for them (heap + native)"),
          new Headline("retention", "amplification", Unit.RATIO, "held / kept"),
          new Headline("retention", "rssGrowthBytes", Unit.BYTES, "RSS growth, read from /proc"),
          new Headline("bigwrite", "peakExtraBytes", Unit.BYTES, "writer's RSS rise during write"),
          new Headline("bigwrite", "writeMs", Unit.MILLIS, "write() to completion"));

  int run() {
    out.printf(
        "Sluice vs Netty %s (NIO, default allocator): a quick demonstration.%n"
            + "Each run starts the measured side and its peer as separate JVMs and reads the"
            + " measured process's memory from /proc.%n"
            + "%d runs per arm, arms alternated; the full benchmarks run 5:%n"
            + "  ./sluice bench retention --size 1400      ./sluice bench bigwrite --mib 256%n%n",
        io.netty.util.Version.identify().getOrDefault("netty-transport", null) == null
            ? "4.2"
            : io.netty.util.Version.identify().get("netty-transport").artifactVersion(),
        RUNS);
    Map<String, Report> reports = new LinkedHashMap<>();
    try {
      reports.put("retention", runOne("retention", Map.of("size", "1400", "chunks", "20000")));
      reports.put("bigwrite", runOne("bigwrite", Map.of("mib", "256", "buffer", "heap")));
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      err.println("error: the demonstration failed: " + e.getMessage());
      return Main.FAILED;
    }
    for (Report report : reports.values()) {
      out.println(report.table());
    }
    out.print(summary(reports));
    boolean ok = reports.values().stream().allMatch(Report::integrityOk);
    out.println(ok ? "Every byte verified in every run." : "INTEGRITY FAILURE: see above.");
    return ok ? Main.OK : Main.FAILED;
  }

  private Report runOne(String name, Map<String, String> overrides) throws Exception {
    Workload workload = Workloads.get(name);
    Map<String, String> values = new LinkedHashMap<>();
    workload.options().forEach(o -> values.put(o.name(), o.defaultValue()));
    values.putAll(overrides);
    Harness harness =
        new Harness(
            workload,
            Params.of(values),
            List.of(Impl.SLUICE, Impl.NETTY),
            RUNS,
            Duration.ofMinutes(5),
            err::println);
    err.println("[" + name + "] starting; JVM flags: " + String.join(" ", harness.jvmFlags()));
    return harness.run();
  }

  private static String summary(Map<String, Report> reports) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"workload", "figure", "Sluice", "Netty", "Sluice/Netty", "meaning"});
    for (Headline h : HEADLINES) {
      Report report = reports.get(h.workload());
      ArmSummary sluice = report.arm(Impl.SLUICE);
      ArmSummary netty = report.arm(Impl.NETTY);
      double s = sluice.median(h.field());
      double n = netty.median(h.field());
      rows.add(
          new String[] {
            h.workload() + (h.workload().equals("retention") ? " 1400 B" : " 256 MiB heap"),
            h.field(),
            h.unit().format(s),
            h.unit().format(n),
            n == 0 ? "-" : String.format(Locale.ROOT, "%.2f", s / n),
            h.meaning()
          });
    }
    int[] widths = new int[rows.getFirst().length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder table = new StringBuilder("Summary (medians of " + RUNS + " runs per arm)\n");
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        table.append(String.format(Locale.ROOT, "%-" + (widths[i] + 2) + "s", row[i]));
      }
      table.setLength(table.length() - 2);
      table.append('\n');
    }
    return table.toString();
  }
}
