package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.Main;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.proxy.PemFiles;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyProcess;
import dev.sluice.bench.proxy.ProxySetup;
import dev.sluice.bench.testing.BenchRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The proxy workloads, tiny, through the real harness: for every arm that can run here (netty and
 * haproxy always; sluice as soon as its proxy is built, which ProxyArmsTest insists on once its
 * entry point exists) a proxy process, a load client and an echo upstream, every byte verified.
 * HAProxy is installed by .ci/run (and by the haproxy arm itself when missing). Figures are not
 * asserted: these are runs, not benchmarks.
 */
class ProxyWorkloadSmokeTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "proxyidle --connections 8 --warmup-connections 2 --settle-ms 0",
        "burstidle --connections 6 --cycles 2 --read-buffer 4k --warmup-connections 2"
            + " --gap-ms 10 --settle-ms 0",
        "proxythroughput --connections 1 --seconds 1 --warmup-seconds 0",
        "proxybulk --connections 2 --seconds 1 --warmup-seconds 0",
        "proxypingpong --connections 2 --round-trips 20 --warmup-round-trips 2",
        "connrate --count 2 --warmup-count 0 --tls",
        "handshake --seconds 1 --warmup-seconds 0 --parallel 2 --impl sluice,haproxy",
        // TLS 1.2 with the ECDSA certificate: the client must list its curve (P-256) to get it.
        "handshake --tls-version 1.2 --mode full --seconds 1 --warmup-seconds 0 --parallel 1"
            + " --impl sluice,haproxy"
      })
  @SuppressWarnings("unchecked")
  void everyProxyWorkloadRunsSmallWithEveryArmVerified(String command) {
    BenchRun outcome = BenchRun.of(command.split(" "));
    assertThat(outcome.status()).as(outcome.stderr()).isEqualTo(Main.OK);
    Map<String, Object> json = outcome.lastLineJson();
    assertThat(json).containsEntry("integrity", "OK").containsKeys("arms", "conditions");
    boolean tls = command.contains("--tls") || command.startsWith("handshake");
    List<String> expected =
        command.contains("--impl sluice,haproxy")
            ? List.of("sluice", "haproxy")
            : ProxyArms.available(tls).stream().map(Impl::id).toList();
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactlyElementsOf(expected);
    Map<String, Object> conditions = (Map<String, Object>) json.get("conditions");
    if (!expected.contains("sluice")) {
      assertThat((String) conditions.get("sluice")).startsWith("not run: ");
    }
    String field =
        switch (command.split(" ")[0]) {
          case "proxyidle", "burstidle" -> "bytesPerConnection";
          case "proxythroughput", "proxybulk" -> "cpuSecondsPerGiB";
          case "proxypingpong" -> "p99Us";
          case "handshake" -> "fullCpuUsPerHandshake";
          default -> "connPerSec";
        };
    arms.forEach(
        (id, arm) -> {
          Map<String, Object> fields = (Map<String, Object>) arm;
          assertThat(fields).containsEntry("integrity", "OK").containsKeys(field, "model");
          if (id.equals("haproxy")) {
            assertThat((String) fields.get("version")).startsWith("HAProxy version ");
          }
          if (id.equals("netty-openssl") || (tls && id.equals("netty-epoll"))) {
            // netty-epoll terminates TLS on OpenSSL too: native transport, native TLS.
            assertThat((String) fields.get("tlsLibrary")).startsWith("BoringSSL");
          } else if (id.equals("sluice") && tls && !command.contains("--engine jdk")) {
            // The library under Sluice's OpenSSL engine, the one this JVM would load too.
            assertThat((String) fields.get("tlsLibrary"))
                .startsWith(
                    dev.sluice.tls.openssl.OpenSsl.library()
                            == dev.sluice.tls.openssl.OpenSsl.Library.BORINGSSL
                        ? "BoringSSL"
                        : "OpenSSL 3");
          } else {
            assertThat(fields).doesNotContainKey("tlsLibrary");
          }
        });
    if (tls) {
      assertThat(conditions)
          .containsEntry(
              "tlsProtocol", command.contains("--tls-version 1.2") ? "TLSv1.2" : "TLSv1.3");
    }
    if (command.startsWith("handshake")) {
      // The client counted resumptions: none in the full phase, every one in the resumed one.
      arms.values()
          .forEach(
              arm -> {
                Map<String, Object> fields = (Map<String, Object>) arm;
                assertThat((String) fields.get("fullResumed")).startsWith("0 of ");
                if (!command.contains("--mode full")) {
                  String resumed = (String) fields.get("resumedResumed");
                  assertThat(resumed.split(" of ")[0]).isEqualTo(resumed.split(" of ")[1]);
                }
              });
      assertThat((Map<String, Object>) arms.get("sluice")).containsKey("vsHaproxy");
    }
    if (command.startsWith("proxybulk")) {
      // Every arm's figures over HAProxy's, the baseline issue 15's goals are stated against.
      arms.forEach(
          (id, arm) -> {
            if (!id.equals("haproxy")) {
              assertThat((Map<String, Object>) ((Map<String, Object>) arm).get("vsHaproxy"))
                  .containsKeys("mibPerSec", "cpuSecondsPerGiB");
            }
          });
    }
    if (command.startsWith("connrate") || command.startsWith("proxypingpong")) {
      // The warm-up repeats only for a JVM proxy whose compilers were busy: HAProxy runs one round.
      arms.forEach(
          (id, arm) -> {
            Map<String, Object> fields = (Map<String, Object>) arm;
            assertThat(((Number) fields.get("warmupRounds")).doubleValue())
                .isBetween(1.0, id.equals("haproxy") ? 1.0 : 10.0);
            assertThat(((Number) fields.get("compilerCpuShare")).doubleValue())
                .isBetween(0.0, id.equals("haproxy") ? 0.0 : 1.0);
          });
    }
    if (command.startsWith("proxyidle")) {
      Map<String, Object> netty = (Map<String, Object>) arms.get("netty");
      Map<String, Object> haproxy = (Map<String, Object>) arms.get("haproxy");
      assertThat(netty).containsKey("heapPerConnection").doesNotContainKey("poolPerConnection");
      assertThat(haproxy).containsKey("poolPerConnection").doesNotContainKey("heapPerConnection");
    }
  }

  /**
   * Where TLS is terminated, the netty-epoll arm runs Netty at its fastest on Linux, native epoll
   * and OpenSSL: its proxy says so once it listens.
   */
  @Test
  void nettyEpollTerminatesTlsOnOpenSsl() throws Exception {
    ProxySetup setup =
        new ProxySetup(
            ProxySetup.freeLoopbackAddress(),
            ProxySetup.freeLoopbackAddress(),
            PemFiles.shared(),
            16,
            64 * 1024);
    try (ProxyProcess proxy = ProxyArms.start(Impl.NETTY_EPOLL, setup)) {
      proxy.awaitReady(Duration.ofSeconds(60));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!proxy.outputTail().contains("listening") && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(proxy.outputTail()).contains("epoll, TLS on BoringSSL");
    }
  }

  /** Also runs the churn phase (on the arm without jcmd, to keep it short). */
  @Test
  void aCorruptedByteThroughTheProxyFailsTheRun() {
    BenchRun outcome =
        BenchRun.of(
            "proxyidle",
            "--connections",
            "4",
            "--warmup-connections",
            "2",
            "--settle-ms",
            "0",
            "--churn",
            "4",
            "--impl",
            "haproxy",
            "--corrupt-at",
            "5000");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr()).contains("INTEGRITY FAILURE", "wrong byte at stream offset 5000");
  }

  /** proxybulk's bytes are checked in its sink, not by the client: a flipped byte there fails. */
  @Test
  void aCorruptedByteAtTheBulkSinkFailsTheRun() {
    BenchRun outcome =
        BenchRun.of(
            "proxybulk",
            "--connections",
            "1",
            "--seconds",
            "1",
            "--warmup-seconds",
            "0",
            "--impl",
            "haproxy",
            "--corrupt-at",
            "5000");
    assertThat(outcome.status()).isEqualTo(Main.FAILED);
    assertThat(outcome.lastLineJson()).containsEntry("integrity", "FAIL");
    assertThat(outcome.stderr())
        .contains("INTEGRITY FAILURE", "stream 0: wrong byte at stream offset 5000");
  }
}
