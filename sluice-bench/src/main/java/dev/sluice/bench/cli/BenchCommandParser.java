package dev.sluice.bench.cli;

import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.bench.workload.Workloads;
import dev.sluice.net.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Parses {@code WORKLOAD [--OPTION VALUE]... [--impl all|ARM[,ARM]...] [--runs N] [--json]
 * [--transport auto|epoll|nio]}; {@code --transport} picks the Sluice arms' event-loop transport
 * (where the workload has no {@code --transport} of its own). Every mistake is an {@link
 * IllegalArgumentException} whose message says what was expected.
 */
public final class BenchCommandParser {
  static final int DEFAULT_RUNS = 5;
  static final Duration DEFAULT_STEP_TIMEOUT = Duration.ofMinutes(10);

  private BenchCommandParser() {}

  /** Parses the arguments that follow {@code bench}. */
  public static BenchRequest parse(List<String> args) {
    if (args.isEmpty() || args.getFirst().startsWith("-")) {
      throw new IllegalArgumentException("bench needs a workload first, e.g. 'bench retention'");
    }
    Workload workload = Workloads.get(args.getFirst());
    Map<String, String> values = new LinkedHashMap<>();
    workload.options().forEach(o -> values.put(o.name(), o.defaultValue()));
    String impl = "all";
    int runs = DEFAULT_RUNS;
    boolean json = false;
    Duration timeout = DEFAULT_STEP_TIMEOUT;

    for (int i = 1; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (name.equals("json")) {
        if (value != null) {
          throw new IllegalArgumentException("--json takes no value");
        }
        json = true;
        continue;
      }
      Option declared = option(workload, name);
      if (declared != null && declared.flag()) {
        values.put(name, flagValue(name, value));
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        value = args.get(++i);
      }
      switch (name) {
        case "impl" -> impl = value;
        case "runs" -> runs = positive("runs", value);
        case "timeout-s" -> timeout = Duration.ofSeconds(positive("timeout-s", value));
        case JvmFlags.TRANSPORT_OPTION -> {
          if (values.containsKey(name)) {
            values.put(name, value); // the workload's own --transport (tlsidle: tls or plain)
          } else {
            JvmFlags.useTransport(Transport.of(value));
          }
        }
        case Corruption.OPTION -> values.put(name, Long.toString(Params.parseBytes(name, value)));
        default -> {
          if (!values.containsKey(name)) {
            throw new IllegalArgumentException(
                "unknown option --"
                    + name
                    + " for "
                    + workload.name()
                    + "; its options: "
                    + workload.options().stream()
                        .map(o -> "--" + o.name())
                        .collect(Collectors.joining(", "))
                    + " (and --impl, --runs, --json, --timeout-s, --corrupt-at, --transport)");
          }
          values.put(name, value);
        }
      }
    }
    Params params = Params.of(values);
    validate(workload, params);
    // After the options: a workload's arms may depend on them (tlsidle --transport plain).
    List<Impl> impls = Impl.select(impl, workload.arms(params), workload.name());
    return new BenchRequest(workload, params, impls, runs, json, timeout);
  }

  /** Reads every option once through its workload, so a bad value fails here, not in a child. */
  private static void validate(Workload workload, Params params) {
    workload.fields(params);
    workload.memoryFlags(params);
    for (Option option : workload.options()) {
      params.string(option.name());
    }
  }

  private static Option option(Workload workload, String name) {
    return workload.options().stream().filter(o -> o.name().equals(name)).findFirst().orElse(null);
  }

  /** A flag alone is true; {@code --name=true|false} says which. */
  private static String flagValue(String name, String value) {
    if (value == null || value.equals("true")) {
      return "true";
    }
    if (value.equals("false")) {
      return "false";
    }
    throw new IllegalArgumentException(
        "--" + name + " is a flag: give it alone, or as --" + name + "=false; got '" + value + "'");
  }

  private static int positive(String name, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--" + name + " expects a positive whole number, got '" + value + "'");
  }
}
