package dev.sluice.bench.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.Impl;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
  void theTlsEngineIsWrittenOnlyWhenGiven() {
    PemFiles pem = new PemFiles(Path.of("/tmp/x/server.crt"), Path.of("/tmp/x/server.key"), null);
    for (String engine : List.of("auto", "openssl", "jdk")) {
      ProxySetup setup = new ProxySetup(PLAIN.listen(), PLAIN.upstream(), pem, 100, 65536, engine);
      assertThat(SluiceArm.yaml(setup))
          .contains(
              "    tls: {certificates: [{cert: /tmp/x/server.crt, key: /tmp/x/server.key}],"
                  + " engine: "
                  + engine
                  + "}\n");
    }
    // Unset: no key at all, so a proxy that does not know it yet still starts.
    ProxySetup unset = new ProxySetup(PLAIN.listen(), PLAIN.upstream(), pem, 100, 65536);
    assertThat(SluiceArm.yaml(unset)).doesNotContain("engine");
  }

  @Test
  void nettyOnOpenSslIsAnArmOnlyWithTls() {
    assertThat(ProxyArms.available(true)).contains(Impl.NETTY_OPENSSL, Impl.NETTY, Impl.HAPROXY);
    assertThat(ProxyArms.available(false)).doesNotContain(Impl.NETTY_OPENSSL);
    assertThatThrownBy(() -> ProxyArms.start(Impl.NETTY_OPENSSL, PLAIN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only with TLS");
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
        .contains(
            "global\n    maxconn 9016\n    nbthread " + HaproxyArm.THREADS + "\n    nosplice\n")
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

  private static final ClusterSetup CLUSTER =
      new ClusterSetup(
          List.of(
              new InetSocketAddress("127.0.0.1", 5001), new InetSocketAddress("127.0.0.1", 5002)),
          Duration.ofMillis(500),
          Duration.ofMillis(250),
          2,
          3,
          3,
          3,
          new InetSocketAddress("127.0.0.1", 4001));

  @Test
  void sluiceGetsTheClusterWithTheSameChecksRetriesAndEjection() {
    assertThat(SluiceArm.yaml(PLAIN, CLUSTER))
        .contains(
            """
              - name: echo
                upstreams:
                  - {address: 127.0.0.1:5001}
                  - {address: 127.0.0.1:5002}
                balance: roundrobin
                healthCheck: {type: tcp, interval: 500ms, timeout: 250ms, rise: 2, fall: 3}
                passive: {failures: 3, backoff: 500ms, maxBackoff: 500ms}
                retries: {tries: 4, within: 5s}
            """)
        .endsWith("admin: {address: 127.0.0.1:4001}\n")
        .doesNotContain("5000");
  }

  @Test
  void haproxyGetsTheSameClusterAndItsConfigurationIsValid() throws Exception {
    String cfg = HaproxyArm.config(PLAIN, Path.of("/tmp/run"), CLUSTER);
    assertThat(cfg)
        .contains(
            """
            backend echo
                balance roundrobin
                retries 3
                option redispatch 1
                timeout check 250ms
                server u0 127.0.0.1:5001 check inter 500ms rise 2 fall 3 observe layer4 \
            error-limit 3 on-error mark-down
                server u1 127.0.0.1:5002 check inter 500ms rise 2 fall 3 observe layer4 \
            error-limit 3 on-error mark-down
            """)
        .doesNotContain("5000");
    ClusterSetup checksOnly =
        new ClusterSetup(
            CLUSTER.upstreams(),
            CLUSTER.interval(),
            CLUSTER.timeout(),
            2,
            3,
            3,
            0,
            CLUSTER.admin());
    assertThat(HaproxyArm.config(PLAIN, Path.of("/tmp/run"), checksOnly)).doesNotContain("observe");
    assertThat(SluiceArm.yaml(PLAIN, checksOnly)).contains("passive: {failures: 0,");
    // HAProxy itself accepts it (-c: check the configuration and exit).
    Path dir = Files.createTempDirectory("haproxy-check");
    try {
      Path file = dir.resolve("haproxy.cfg");
      Files.writeString(file, HaproxyArm.config(PLAIN, dir, CLUSTER));
      Process check =
          new ProcessBuilder(HaproxyArm.executable().toString(), "-c", "-f", file.toString())
              .redirectErrorStream(true)
              .start();
      String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(check.waitFor()).as(output).isZero();
    } finally {
      Files.deleteIfExists(dir.resolve("haproxy.cfg"));
      Files.deleteIfExists(dir);
    }
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
  void compilerThreadsAreHotSpotsC1AndC2ThreadsByTheirTruncatedNames() throws Exception {
    assertThat(ProcStat.isCompilerThread("7 (C2 CompilerThre) S 1 2 3")).isTrue();
    assertThat(ProcStat.isCompilerThread("7 (C1 CompilerThre) S 1 2 3")).isTrue();
    assertThat(ProcStat.isCompilerThread("7 (sluice-loop-0) S 1 2 3")).isFalse();
    assertThat(ProcStat.isCompilerThread("7 (VM Thread) S 1 2 3")).isFalse();
    long self = ProcessHandle.current().pid();
    Duration compilers = ProcStat.compilerCpuTime(self);
    assertThat(compilers.isNegative()).isFalse();
    assertThat(compilers).isLessThanOrEqualTo(ProcStat.cpuTime(self));
    Process sleep = new ProcessBuilder("sleep", "30").start();
    try {
      assertThat(ProcStat.compilerCpuTime(sleep.pid())).isZero(); // no JIT there
    } finally {
      sleep.destroyForcibly().waitFor();
    }
  }

  @Test
  void sizesAreWrittenInTheConfigurationsUnits() {
    assertThat(SluiceArm.size(64 * 1024)).isEqualTo("64KiB");
    assertThat(SluiceArm.size(256L << 20)).isEqualTo("256MiB");
    assertThat(SluiceArm.size(1000)).isEqualTo("1000");
  }
}
