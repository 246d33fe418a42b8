package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Accept under file-descriptor exhaustion (EMFILE): the listener backs off instead of spinning on a
 * socket that stays acceptable, and accepts the waiting connections once descriptors are free. It
 * runs in a child JVM: exhausting this JVM's descriptors would break the test runner itself.
 */
class AcceptBackoffTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "logging {0}")
  @ValueSource(strings = {"warm", "cold"})
  void acceptBacksOffWhileOutOfDescriptorsAndResumesOnceTheyAreFree(String logging)
      throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(
            Duration.ofMinutes(1),
            List.of("-Xmx256m", "--enable-native-access=ALL-UNNAMED"),
            FdExhaustionProbe.class,
            dir.toString(),
            logging);
    assertThat(run.exitCode()).as("%s", run).isZero();
    assertThat(run.results().get("exhaustion")).as("%s", run).contains("Too many open files");
    assertThat(run.number("acceptedWhileExhausted")).isZero();
    // Backoff doubles from 10 ms, so half a second of exhaustion costs about six tries; an accept
    // loop that spun on the ready listener would count thousands.
    assertThat(run.number("backoffsWhileExhausted")).as("%s", run).isBetween(1L, 20L);
    assertThat(run.number("acceptedAfter")).as("%s", run).isEqualTo(4);
    assertThat(run.number("echoes")).isEqualTo(4);
    if (logging.equals("warm")) {
      assertThat(run.output())
          .as("the listener says why it pauses")
          .anyMatch(
              line -> line.contains("Too many open files") && line.contains("pausing accepts"));
    }
  }
}
