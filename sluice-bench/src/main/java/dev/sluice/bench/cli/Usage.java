package dev.sluice.bench.cli;

import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.workload.Workloads;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The help texts. */
public final class Usage {
  private Usage() {}

  /** The general usage text. */
  public static String text() {
    StringBuilder out = new StringBuilder();
    out.append(
        """
        Usage:
          ./sluice demo            demonstration: retention (1400 B chunks) and bigwrite (256 MiB
                                   heap buffer), Sluice vs Netty, 3 runs per arm, as a table
          ./sluice bench WORKLOAD [--OPTION VALUE]... [--impl all|ARM[,ARM]...] [--runs N] [--json]
                                   run one benchmark; each run starts the measured side and its
                                   peer as separate JVMs and reads memory from /proc
          ./sluice bench help [WORKLOAD]
                                   this text, or one workload's options and fields

        Workloads:
        """);
    for (Workload w : Workloads.all()) {
      out.append(String.format(Locale.ROOT, "  %-13s %s%n", w.name(), w.summary()));
    }
    out.append(
        """

        Options of every workload:
          --impl all|ARM[,ARM]...   arms to run: all of the workload's (the default), one, or a
                                    comma list (sluice, netty; all but the TLS workloads
                                    netty-epoll; the TLS workloads and the
                                    proxy workloads with TLS also have netty-openssl, the
                                    proxy workloads haproxy); they alternate A B C A B C ...
                                    in that order
          --runs N                  runs per arm (default 5); figures are medians [min .. max]
          --json                    end the output with one line of JSON
          --timeout-s N             give up when a child is silent this long (default 600)
          --corrupt-at N            self-test of the integrity check: the peer flips the byte at
                                    stream offset N, so the run must report FAIL and exit 1

        Exit status: 0 all runs verified, 1 an integrity failure or a failed run, 2 a usage error.
        """);
    return out.toString();
  }

  /** One workload's options, defaults and fields. */
  public static String workload(Workload workload) {
    StringBuilder out = new StringBuilder();
    out.append(workload.name()).append(": ").append(workload.summary()).append("\n\n");
    Map<String, String> defaults = new LinkedHashMap<>();
    workload.options().forEach(o -> defaults.put(o.name(), o.defaultValue()));
    out.append("Arms (--impl): ")
        .append(Impl.ids(workload.arms(Params.of(defaults))))
        .append("\n\nOptions:\n");
    for (Option o : workload.options()) {
      out.append(
          String.format(
              Locale.ROOT,
              "  --%-20s %s%s%n",
              o.flag() ? o.name() : o.name() + " V",
              o.description(),
              o.flag() ? " (a flag; off unless given)" : " (default " + o.defaultValue() + ")"));
    }
    out.append("\nFields (medians over runs, with min and max):\n");
    for (Field f : workload.fields(Params.of(defaults))) {
      out.append(String.format(Locale.ROOT, "  %-22s %s%n", f.name(), f.description()));
    }
    return out.toString();
  }
}
