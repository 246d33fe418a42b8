package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.testing.BenchRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS workloads, tiny, through the real harness: forked peer and measured JVMs for every arm
 * (Sluice, Netty on the JDK's engine, Netty on OpenSSL), a certificate made with keytool, the
 * negotiated version and suite stated, every byte verified. Figures are not asserted: these are
 * runs, not benchmarks. Every arm of a workload runs in this class, not in every combination (the
 * OpenSSL arm once per workload, with TLS 1.3 and 1.2 between them), and tlsidle skips the waits
 * its memory readings need ({@code --settle-ms 0}), to keep the suite short.
 */
class TlsWorkloadSmokeTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tlsretention --connections 2 --bytes 256k --warmup-bytes 64k --keep-every 5",
        "tlsretention --connections 2 --bytes 64k --warmup-bytes 16k --keep-every 5 --write 1024"
            + " --tls 1.2 --impl sluice,netty",
        "tlsthroughput --chunk 32k --mib 4 --warmup-mib 1 --impl sluice,netty",
        "tlsthroughput --chunk 256 --mib 1 --warmup-mib 1 --tls 1.2",
        // Netty's idle server runs in the plain control below, the JDK's engine in Netty above.
        "tlsidle --connections 20 --warmup-connections 5 --settle-ms 0 --impl sluice,netty-openssl"
      })
  @SuppressWarnings("unchecked")
  void everyTlsWorkloadRunsSmallWithItsArmsVerified(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "ratios", "conditions");
    int impl = List.of(command.split(" ")).indexOf("--impl");
    List<String> expected =
        impl >= 0
            ? List.of(command.split(" ")[impl + 1].split(","))
            : List.of("sluice", "netty", "netty-openssl"); // all of the workload's, the default
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactlyElementsOf(expected);
    assertThat(((Map<String, Object>) json.get("ratios")).keySet())
        .containsExactlyElementsOf(expected.subList(1, expected.size()));
    arms.forEach(
        (id, arm) -> {
          Map<String, Object> fields = (Map<String, Object>) arm;
          assertThat(fields)
              .containsEntry("integrity", "OK")
              .containsKey(
                  switch (command.split(" ")[0]) {
                    case "tlsretention" -> "amplification";
                    case "tlsthroughput" -> "mibPerSec";
                    default -> "bytesPerConnection";
                  });
          // The OpenSSL arm really ran on OpenSSL; the others on the JDK's engine.
          assertThat((String) fields.get("tlsLibrary"))
              .startsWith(id.equals("netty-openssl") ? "BoringSSL" : "JDK SSLEngine");
        });
    String protocol = command.contains("--tls 1.2") ? "TLSv1.2" : "TLSv1.3";
    assertThat((Map<String, Object>) json.get("conditions"))
        .containsEntry("tlsProtocol", protocol)
        .containsKey("cipherSuite");
  }

  /**
   * One per place the bytes are checked: the measured client (in Sluice's code and in the Netty
   * arms', here on OpenSSL), the peer receiving, the echo.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "tlsretention --connections 2 --bytes 64k --warmup-bytes 16k --keep-every 5"
            + " --impl sluice,netty-openssl",
        "tlsthroughput --chunk 32k --mib 1 --warmup-mib 1 --impl netty",
        "tlsidle --connections 4 --warmup-connections 2 --settle-ms 0 --impl sluice"
      })
  @SuppressWarnings("unchecked")
  void aCorruptedByteFailsTheRunAndExitsNonZero(String command) {
    BenchRun outcome = BenchRun.of((command + " --corrupt-at 5000").split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.FAILED);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "FAIL");
    if (json.get("arms") instanceof Map<?, ?> arms) {
      assertThat(arms.values()) // every arm caught it
          .allSatisfy(a -> assertThat((Map<String, Object>) a).containsEntry("integrity", "FAIL"));
    }
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE", "wrong byte at stream offset 5000");
  }

  /**
   * The plain TCP control of tlsidle (its arms without TLS, every byte verified), with {@code
   * --breakdown on}: every arm reports where its RSS growth went (smaps by range, NMT, malloc) and
   * what trimming the malloc arenas gave back, and every child ran with NMT. One run for both: the
   * breakdown does not depend on TLS.
   */
  @Test
  @SuppressWarnings("unchecked")
  void tlsidlesPlainControlRunsAndBreaksTheRssGrowthDown() {
    BenchRun outcome =
        BenchRun.of(
            ("tlsidle --connections 10 --warmup-connections 5 --settle-ms 0 --transport plain"
                    + " --breakdown on")
                .split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK");
    assertThat((Map<String, Object>) json.get("conditions")).doesNotContainKey("tlsProtocol");
    assertThat((List<String>) json.get("jvmFlags")).contains("-XX:NativeMemoryTracking=summary");
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactly("sluice", "netty"); // no OpenSSL arm without TLS
    arms.forEach(
        (id, arm) ->
            assertThat((Map<String, Object>) arm)
                .containsEntry("integrity", "OK")
                .doesNotContainKey("tlsLibrary")
                .containsKeys(
                    "bytesPerConnection",
                    "rssPerConnectionBy",
                    "oldGenPeakPerConnection",
                    "nmtPerConnection",
                    "nmtPerConnectionBy",
                    "mallocPerConnectionBy",
                    "trimmedBytes"));
    Map<String, Object> rss =
        (Map<String, Object>) ((Map<String, Object>) arms.get("sluice")).get("rssPerConnectionBy");
    assertThat(rss).containsKeys("javaHeap", "codeCache", "otherAnonymous", "fileBacked");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"tlsretention --tls 1.1", "tlsidle --transport quic", "tlsidle --breakdown yes"})
  void aBadTlsOptionIsAUsageError(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).isEqualTo(Main.USAGE);
    assertThat(outcome.stderr())
        .containsAnyOf("--tls expects", "--transport expects", "--breakdown expects");
  }
}
