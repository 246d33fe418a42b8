package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.testing.BenchRun;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS workloads, tiny, through the real harness: forked peer and measured JVMs for both
 * implementations, a certificate made with keytool, the negotiated version and suite stated, every
 * byte verified. Figures are not asserted: these are runs, not benchmarks.
 */
class TlsWorkloadSmokeTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tlsretention --connections 2 --bytes 256k --warmup-bytes 64k --keep-every 5",
        "tlsretention --connections 2 --bytes 64k --warmup-bytes 16k --keep-every 5 --write 1024"
            + " --tls 1.2",
        "tlsthroughput --chunk 32k --mib 4 --warmup-mib 1",
        "tlsthroughput --chunk 256 --mib 1 --warmup-mib 1 --tls 1.2",
        "tlsidle --connections 20 --warmup-connections 5",
        "tlsidle --connections 20 --warmup-connections 5 --transport plain"
      })
  @SuppressWarnings("unchecked")
  void everyTlsWorkloadRunsSmallWithBothArmsVerified(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "ratios", "conditions");
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms).containsOnlyKeys("sluice", "netty");
    for (Object arm : arms.values()) {
      assertThat((Map<String, Object>) arm)
          .containsEntry("integrity", "OK")
          .containsKey(
              switch (command.split(" ")[0]) {
                case "tlsretention" -> "amplification";
                case "tlsthroughput" -> "mibPerSec";
                default -> "bytesPerConnection";
              });
    }
    Map<String, Object> conditions = (Map<String, Object>) json.get("conditions");
    if (command.contains("--transport plain")) {
      assertThat(conditions).doesNotContainKey("tlsProtocol");
    } else {
      String protocol = command.contains("--tls 1.2") ? "TLSv1.2" : "TLSv1.3";
      assertThat(conditions).containsEntry("tlsProtocol", protocol).containsKey("cipherSuite");
    }
  }

  /** One per place the bytes are checked: the measured client, the peer receiving, the echo. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "tlsretention --connections 2 --bytes 64k --warmup-bytes 16k --keep-every 5 --impl sluice",
        "tlsthroughput --chunk 32k --mib 1 --warmup-mib 1 --impl netty",
        "tlsidle --connections 4 --warmup-connections 2 --impl sluice"
      })
  void aCorruptedByteFailsTheRunAndExitsNonZero(String command) {
    BenchRun outcome = BenchRun.of((command + " --corrupt-at 5000").split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE", "wrong byte at stream offset 5000");
  }

  @ParameterizedTest
  @ValueSource(strings = {"tlsretention --tls 1.1", "tlsidle --transport quic"})
  void aBadTlsOptionIsAUsageError(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).isEqualTo(Main.USAGE);
    assertThat(outcome.stderr()).containsAnyOf("--tls expects", "--transport expects");
  }
}
