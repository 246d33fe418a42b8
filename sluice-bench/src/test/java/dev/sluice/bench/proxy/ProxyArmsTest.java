package dev.sluice.bench.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.Impl;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the arms are configured and measured, without starting any of them. */
class ProxyArmsTest {
  private static final ProxySetup PLAIN =
      new ProxySetup(
          new InetSocketAddress("127.0.0.1", 4000),
          new InetSocketAddress("127.0.0.1", 5000),
          null,
          9016,
          64 * 1024);

  @Test
  void sluiceGetsTheContractsYaml() {
    assertThat(SluiceArm.yaml(PLAIN))
        .isEqualTo(
            """
            listeners:
              - name: bench
                address: 127.0.0.1:4000
                cluster: echo
            clusters:
              - name: echo
                upstreams: [{address: 127.0.0.1:5000}]
            timeouts: {connect: 5s, idle: 1h, handshake: 10s}
            buffers: {readBufferSize: 64KiB, maxBytesInFlight: 256MiB}
            """);
    PemFiles pem = new PemFiles(Path.of("/tmp/x/server.crt"), Path.of("/tmp/x/server.key"), null);
    ProxySetup tls =
        new ProxySetup(PLAIN.listen(), PLAIN.upstream(), pem, PLAIN.maxConnections(), 4096);
    assertThat(SluiceArm.yaml(tls))
        .contains("    tls: {certificates: [{cert: /tmp/x/server.crt, key: /tmp/x/server.key}]}\n")
        .contains("readBufferSize: 4KiB");
  }

  @Test
  void jvmOptionsAreOneFlagALineWithComments() {
    assertThat(
            SluiceArm.parseJvmOptions(
                "# the proxy's flags\n-XX:+UseSerialGC\n\n  -Xmn8m   # small young gen\n-Xss256k\n"))
        .containsExactly("-XX:+UseSerialGC", "-Xmn8m", "-Xss256k");
  }

  @Test
  void bothJvmArmsRunWithTheSameFlags() {
    assertThat(ProxyArms.jvmFlags()).isNotEmpty();
    if (SluiceArm.jvmOptionsFile() == null) {
      assertThat(ProxyArms.jvmFlags()).isEqualTo(SluiceArm.FALLBACK_FLAGS);
    }
  }

  @Test
  void theSluiceArmIsAvailableExactlyWhenItsProxyIsBuilt() {
    // No silent skip: once the proxy's entry point is in the source, the arm must run here.
    if (SluiceArm.mainInSource()) {
      assertThat(SluiceArm.unavailableReason()).isNull();
      assertThat(ProxyArms.available()).contains(Impl.SLUICE);
    } else {
      assertThat(SluiceArm.unavailableReason()).contains("has not landed");
      assertThat(ProxyArms.available()).containsExactly(Impl.NETTY, Impl.HAPROXY);
    }
  }

  @Test
  void haproxyRunsTcpModeWithoutSpliceSizedToTheRun() {
    String tls =
        HaproxyArm.config(
            new ProxySetup(
                PLAIN.listen(),
                PLAIN.upstream(),
                new PemFiles(null, null, Path.of("/tmp/x/both.pem")),
                9016,
                65536),
            Path.of("/tmp/run"));
    assertThat(tls)
        .contains("global\n    maxconn 9016\n    nbthread 2\n    nosplice\n")
        .contains("    mode tcp\n")
        .contains("    timeout connect 5s\n    timeout client 1h\n    timeout server 1h\n")
        .contains("    bind 127.0.0.1:4000 ssl crt /tmp/x/both.pem\n    maxconn 9016\n")
        .contains("    server echo 127.0.0.1:5000\n")
        .contains("stats socket /tmp/run/admin.sock")
        .doesNotContain("splice-");
    assertThat(HaproxyArm.config(PLAIN, Path.of("/tmp/run")))
        .contains("    bind 127.0.0.1:4000\n")
        .doesNotContain("ssl");
  }

  @Test
  void cpuTimeIsUtimePlusStimeCountedFromTheLastParenthesis() {
    String stat =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 19 0 12345 0 0";
    assertThat(ProcStat.cpuTime(stat)).isEqualTo(Duration.ofMillis(3250));
    assertThatThrownBy(() -> ProcStat.cpuTime("garbage"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sizesAreWrittenInTheConfigurationsUnits() {
    assertThat(SluiceArm.size(64 * 1024)).isEqualTo("64KiB");
    assertThat(SluiceArm.size(256L << 20)).isEqualTo("256MiB");
    assertThat(SluiceArm.size(1000)).isEqualTo("1000");
  }
}
