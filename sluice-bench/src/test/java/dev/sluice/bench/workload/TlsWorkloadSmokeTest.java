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
 * runs, not benchmarks. The OpenSSL arm runs once per workload, with TLS 1.3 and 1.2 between them,
 * to keep the suite short.
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
        "tlsidle --connections 20 --warmup-connections 5",
        "tlsidle --connections 20 --warmup-connections 5 --transport plain"
      })
  @SuppressWarnings("unchecked")
  void everyTlsWorkloadRunsSmallWithItsArmsVerified(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "ratios", "conditions");
    boolean plain = command.contains("--transport plain");
    List<String> expected =
        plain || command.contains("--impl sluice,netty")
            ? List.of("sluice", "netty")
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
          if (plain) {
            assertThat(fields).doesNotContainKey("tlsLibrary");
          } else {
            // The OpenSSL arm really ran on OpenSSL; the others on the JDK's engine.
            assertThat((String) fields.get("tlsLibrary"))
                .startsWith(id.equals("netty-openssl") ? "BoringSSL" : "JDK SSLEngine");
          }
        });
    Map<String, Object> conditions = (Map<String, Object>) json.get("conditions");
    if (plain) {
      assertThat(conditions).doesNotContainKey("tlsProtocol");
    } else {
      String protocol = command.contains("--tls 1.2") ? "TLSv1.2" : "TLSv1.3";
      assertThat(conditions).containsEntry("tlsProtocol", protocol).containsKey("cipherSuite");
    }
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
        "tlsidle --connections 4 --warmup-connections 2 --impl sluice"
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
   * {@code --breakdown on}: every arm reports where its RSS growth went (smaps by range, NMT,
   * malloc) and what trimming the malloc arenas gave back, and every child ran with NMT.
   */
  @Test
  @SuppressWarnings("unchecked")
  void tlsidleBreaksTheRssGrowthDown() {
    BenchRun outcome =
        BenchRun.of(
            "tlsidle --connections 10 --warmup-connections 5 --breakdown on --impl sluice,netty"
                .split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat((List<String>) json.get("jvmFlags")).contains("-XX:NativeMemoryTracking=summary");
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    arms.forEach(
        (id, arm) ->
            assertThat((Map<String, Object>) arm)
                .containsKeys(
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
