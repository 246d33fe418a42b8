package dev.sluice.bench.testing;

import dev.sluice.bench.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs {@code bench WORKLOAD ...} through {@link Main} the way the command line does (forked child
 * JVMs and all), one run per arm, with JSON, and captures the outcome.
 *
 * @param status the exit status
 * @param stdout the table and the JSON line
 * @param stderr progress and errors
 */
public record BenchRun(int status, String stdout, String stderr) {

  /** Runs {@code bench} with {@code args}, plus {@code --runs 1 --json --timeout-s 60}. */
  public static BenchRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of("bench"));
    all.addAll(List.of(args));
    all.addAll(List.of("--runs", "1", "--json", "--timeout-s", "60"));
    int status =
        Main.run(
            all.toArray(String[]::new),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new BenchRun(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The JSON object on the last line of stdout. */
  public Map<String, Object> lastLineJson() {
    String[] lines = stdout.strip().split("\n");
    return JsonReader.object(lines[lines.length - 1]);
  }
}
