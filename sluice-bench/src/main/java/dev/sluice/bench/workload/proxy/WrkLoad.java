package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.proxy.DebianTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code http} workload's load generator: Debian's {@code wrk} (installed with {@code apt-get}
 * when missing), its connections kept alive, run for a fixed duration with a Lua script whose
 * {@code response} hook checks every response (status 200 and exactly the upstream's body) and
 * whose {@code done} hook prints the totals and the latency percentiles as one line.
 */
final class WrkLoad {
  private static final DebianTool TOOL = new DebianTool("wrk", "wrk");

  /** wrk's own timeout for one response; a timed-out request fails the run. */
  static final String TIMEOUT = "10s";

  private final Path wrk;
  private final Path script;

  private WrkLoad(Path wrk, Path script) {
    this.wrk = wrk;
    this.script = script;
  }

  /** wrk, with its checking script for {@code expectedBody} written into {@code dir}. */
  static WrkLoad prepare(Path dir, String expectedBody) throws IOException, InterruptedException {
    Path script = dir.resolve("check.lua");
    Files.writeString(script, script(expectedBody), StandardCharsets.UTF_8);
    return new WrkLoad(TOOL.findOrInstall(), script);
  }

  /** What {@code wrk --version} says first. */
  String version() throws IOException, InterruptedException {
    return DebianTool.firstLine(wrk, "--version");
  }

  /**
   * Runs wrk against {@code url} with {@code connections} over {@code threads} for {@code seconds},
   * and returns what it reported.
   *
   * @throws IOException when wrk fails or does not end within the duration and a minute
   */
  WrkResult run(String url, int connections, int threads, int seconds)
      throws IOException, InterruptedException {
    List<String> command =
        List.of(
            wrk.toString(),
            "-t",
            Integer.toString(threads),
            "-c",
            Integer.toString(connections),
            "-d",
            seconds + "s",
            "--timeout",
            TIMEOUT,
            "-s",
            script.toString(),
            url);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] out;
    try {
      // wrk ends by itself after the duration; its output is small and read to the end.
      out = process.getInputStream().readAllBytes();
      if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
        throw new IOException("wrk did not end " + (seconds + 60) + " s after it started");
      }
    } finally {
      process.destroyForcibly();
    }
    String output = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IOException(
          "wrk exited with "
              + process.exitValue()
              + ": "
              + String.join(" ", command)
              + "\n"
              + output);
    }
    return WrkResult.parse(output);
  }

  /** The Lua script: per-thread counts in {@code response}, summed over threads in {@code done}. */
  static String script(String expectedBody) {
    if (!expectedBody.matches("[A-Za-z0-9]*")) {
      throw new IllegalArgumentException("the expected body must be letters and digits");
    }
    return """
        -- Every response is checked: status 200 and exactly the upstream's body.
        local expected = "%s"
        local threads = {}

        function setup(thread)
          table.insert(threads, thread)
        end

        function init(args)
          checked = 0
          bad = 0
          first_bad = ""
        end

        function response(status, headers, body)
          checked = checked + 1
          if status ~= 200 or body ~= expected then
            if bad == 0 then
              first_bad = "status " .. status .. ", " .. string.len(body or "") .. " body bytes"
            end
            bad = bad + 1
          end
        end

        function done(summary, latency, requests)
          local all_checked, all_bad, first = 0, 0, ""
          for _, t in ipairs(threads) do
            all_checked = all_checked + t:get("checked")
            all_bad = all_bad + t:get("bad")
            if first == "" then first = t:get("first_bad") end
          end
          local e = summary.errors
          io.write(string.format(
            "WRK requests=%%d bytes=%%d durationUs=%%d connectErrors=%%d readErrors=%%d"
              .. " writeErrors=%%d statusErrors=%%d timeouts=%%d checked=%%d bad=%%d p50Us=%%d"
              .. " p99Us=%%d\\n",
            summary.requests, summary.bytes, summary.duration, e.connect, e.read, e.write,
            e.status, e.timeout, all_checked, all_bad, latency:percentile(50),
            latency:percentile(99)))
          if first ~= "" then
            io.write("WRKFIRSTBAD " .. string.gsub(first, "[^%%w ,]", "_") .. "\\n")
          end
        end
        """
        .formatted(expectedBody);
  }
}
