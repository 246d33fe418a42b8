package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  @Test
  void theEphemeralRangeIsReadWhole() throws Exception {
    assumeTrue(Files.exists(RANGE), "Linux's ephemeral range");
    try (var in = Files.newInputStream(RANGE)) {
      String whole = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
      assertThat(FreePorts.ephemeralLow())
          .isEqualTo(Integer.parseInt(whole.trim().split("\\s+")[0]));
    }
  }

  @Test
  void aPortLiesBelowTheEphemeralRange() throws Exception {
    assumeTrue(Files.exists(RANGE), "Linux's ephemeral range");
    assumeTrue(FreePorts.ephemeralLow() > 11_000, "room below the range");
    for (int i = 0; i < 20; i++) {
      assertThat(FreePorts.loopback()).isBetween(10_000, FreePorts.ephemeralLow() - 1);
    }
  }
}
