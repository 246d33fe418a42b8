package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real clients tests drive (curl, mosquitto_pub...): bounded, output captured. */
public final class Commands {
  private Commands() {}

  /** A finished command: its exit code and its output (stdout and stderr, interleaved). */
  public record Result(int exit, String output) {}

  /** Runs {@code command} with {@code stdin} to completion, at most the tests' patience. */
  public static Result run(List<String> command, String stdin) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread.ofVirtual()
        .start(
            () -> {
              try (var in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
              } catch (IOException ignored) {
                // the process may exit before reading it all
              }
            });
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    p.getInputStream().transferTo(out);
                  } catch (IOException ignored) {
                    // ended
                  }
                });
    if (!p.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish: " + out);
    }
    reader.join();
    return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8));
  }
}
