package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void helpListsEveryWorkloadAndTheCommonOptions() {
    assertThat(run("help")).isEqualTo(Main.OK);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("./sluice bench WORKLOAD")
        .contains("retention", "bigwrite", "pingpong", "bulk", "sizesweep")
        .contains("--impl all|ARM[,ARM]...", "netty-openssl", "--runs N", "--json");
  }

  @Test
  void helpForAWorkloadShowsItsOptionsDefaultsAndFields() {
    assertThat(run("help", "retention")).isEqualTo(Main.OK);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--size", "(default 1400)", "heldBytes", "rssGrowthBytes", "amplification");
  }

  @Test
  void helpForAWorkloadNamesItsArms() {
    assertThat(run("help", "tlsthroughput")).isEqualTo(Main.OK);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("Arms (--impl): sluice, netty, netty-openssl");
  }

  @Test
  void unknownInputGetsAClearMessageTheUsageAndStatusTwo() {
    assertThat(run("frobnicate")).isEqualTo(Main.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("error: unknown command 'frobnicate'")
        .contains("Usage:");
  }

  @Test
  void aBadBenchCommandIsAUsageError() {
    assertThat(run("bench", "retention", "--chunks", "many")).isEqualTo(Main.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--chunks", "Usage:");
  }
}
