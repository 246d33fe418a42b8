package dev.sluice.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCommandParserTest {

  @Test
  void defaultsAreTheIssueSizesAllArmsAndFiveRuns() {
    BenchRequest request = BenchCommandParser.parse(List.of("retention"));
    assertThat(request.workload().name()).isEqualTo("retention");
    assertThat(request.params().asMap())
        .containsEntry("size", "1400")
        .containsEntry("chunks", "20000")
        .doesNotContainKey("corrupt-at");
    assertThat(request.impls()).containsExactly(Impl.SLUICE, Impl.NETTY, Impl.NETTY_EPOLL);
    assertThat(request.runs()).isEqualTo(5);
    assertThat(request.json()).isFalse();
  }

  @Test
  void readsWorkloadAndCommonOptionsInBothSpellings() {
    BenchRequest request =
        BenchCommandParser.parse(
            List.of(
                "bigwrite",
                "--mib=64",
                "--buffer",
                "direct",
                "--impl",
                "netty",
                "--runs",
                "3",
                "--json",
                "--timeout-s",
                "30",
                "--corrupt-at",
                "4k"));
    assertThat(request.params().asMap())
        .containsEntry("mib", "64")
        .containsEntry("buffer", "direct")
        .containsEntry("corrupt-at", "4096");
    assertThat(request.impls()).containsExactly(Impl.NETTY);
    assertThat(request.runs()).isEqualTo(3);
    assertThat(request.json()).isTrue();
    assertThat(request.stepTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void implTakesAllOneArmOrACommaListAndRunsThemInOneOrder() {
    assertThat(BenchCommandParser.parse(List.of("tlsthroughput")).impls())
        .containsExactly(Impl.SLUICE, Impl.NETTY, Impl.NETTY_OPENSSL);
    assertThat(BenchCommandParser.parse(List.of("tlsidle", "--impl", "all")).impls())
        .containsExactly(Impl.SLUICE, Impl.NETTY, Impl.NETTY_OPENSSL);
    assertThat(BenchCommandParser.parse(List.of("tlsidle", "--impl", "netty-openssl")).impls())
        .containsExactly(Impl.NETTY_OPENSSL);
    assertThat(
            BenchCommandParser.parse(List.of("tlsretention", "--impl", "netty-openssl,sluice"))
                .impls())
        .containsExactly(Impl.SLUICE, Impl.NETTY_OPENSSL);
    assertThat(BenchCommandParser.parse(List.of("bulk", "--impl", "netty,sluice,netty")).impls())
        .containsExactly(Impl.SLUICE, Impl.NETTY);
    assertThat(BenchCommandParser.parse(List.of("tlsidle", "--transport", "plain")).impls())
        .containsExactly(Impl.SLUICE, Impl.NETTY);
  }

  @Test
  void theHandshakeWorkloadAlwaysRunsTlsWithNettyOnOpenSslAmongItsArms() {
    BenchRequest request = BenchCommandParser.parse(List.of("handshake"));
    assertThat(request.params().asMap())
        .containsEntry("mode", "both")
        .containsEntry("cert", "ecdsa")
        .containsEntry("tls-version", "1.3")
        .containsEntry("engine", "unset")
        .doesNotContainKey("tls");
    assertThat(request.impls()).contains(Impl.NETTY, Impl.NETTY_OPENSSL, Impl.HAPROXY);
    BenchRequest full =
        BenchCommandParser.parse(
            List.of("handshake", "--cert", "rsa", "--tls-version", "1.2", "--mode", "full"));
    assertThat(full.workload().fields(full.params()))
        .extracting(Field::name)
        .containsExactly(
            "fullPerSec",
            "fullCpuUsPerHandshake",
            "fullClientCpuUsPerHandshake",
            "fullHandshakes",
            "fullWarmupHandshakes",
            "fullCompilerCpuShare",
            "warmupRounds");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("handshake", "--tls", "1.3")))
        .hasMessageContaining("unknown option --tls for handshake");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("handshake", "--mode", "half")))
        .hasMessage("--mode expects full, resumed or both, got 'half'");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("handshake", "--cert", "dsa")))
        .hasMessage("--cert expects ecdsa or rsa, got 'dsa'");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("handshake", "--message", "2k")))
        .hasMessage("--message must be at most 1024 bytes");
  }

  @Test
  void engineNamesTheSluiceArmsTlsEngineAndNeedsTls() {
    for (String engine : List.of("auto", "openssl", "jdk")) {
      assertThat(
              BenchCommandParser.parse(List.of("proxyidle", "--tls", "--engine", engine))
                  .params()
                  .asMap())
          .containsEntry("engine", engine);
      assertThat(
              BenchCommandParser.parse(List.of("handshake", "--engine", engine)).params().asMap())
          .containsEntry("engine", engine);
    }
    assertThatThrownBy(
            () ->
                BenchCommandParser.parse(List.of("proxythroughput", "--tls", "--engine", "boring")))
        .hasMessage("--engine expects auto, openssl, jdk, got 'boring'");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("proxyidle", "--engine", "jdk")))
        .hasMessage("--engine sets the Sluice arm's tls.engine: it needs --tls");
  }

  @Test
  void theProxyWorkloadsHaveNettyOnOpenSslOnlyWithTls() {
    assertThat(BenchCommandParser.parse(List.of("proxythroughput", "--tls")).impls())
        .contains(Impl.NETTY, Impl.NETTY_OPENSSL, Impl.HAPROXY);
    assertThat(BenchCommandParser.parse(List.of("proxythroughput")).impls())
        .doesNotContain(Impl.NETTY_OPENSSL);
    assertThatThrownBy(
            () -> BenchCommandParser.parse(List.of("proxyidle", "--impl", "netty-openssl")))
        .hasMessageContaining("proxyidle has no arm netty-openssl");
  }

  @Test
  void anArmTheWorkloadLacksIsAUsageErrorNamingItsArms() {
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bulk", "--impl", "netty-openssl")))
        .hasMessage("bulk has no arm netty-openssl; its arms: sluice, netty, netty-epoll");
    assertThatThrownBy(
            () ->
                BenchCommandParser.parse(
                    List.of("tlsidle", "--transport", "plain", "--impl", "sluice,netty-openssl")))
        .hasMessageContaining("tlsidle has no arm netty-openssl");
    assertThatThrownBy(
            () -> BenchCommandParser.parse(List.of("tlsthroughput", "--impl", "netty-epoll")))
        .hasMessageContaining("tlsthroughput has no arm netty-epoll");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("failover", "--impl", "netty-epoll")))
        .hasMessageContaining("failover has no arm netty-epoll");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bulk", "--impl", "sluice,")))
        .hasMessageContaining("--impl expects all, or one or more of sluice, netty, netty-epoll");
  }

  @Test
  void anUnknownOptionListsTheWorkloadsOptions() {
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("retention", "--mib", "4")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown option --mib for retention")
        .hasMessageContaining("--size");
  }

  @Test
  void mistakesSayWhatWasExpected() {
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of()))
        .hasMessageContaining("needs a workload");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("nosuch")))
        .hasMessageContaining("unknown workload 'nosuch'")
        .hasMessageContaining("retention");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bulk", "--impl", "grpc")))
        .hasMessageContaining(
            "--impl expects all, or one or more of sluice, netty, netty-epoll separated by")
        .hasMessageContaining("'grpc'");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bulk", "--runs", "0")))
        .hasMessageContaining("--runs");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bulk", "--mib")))
        .hasMessageContaining("--mib needs a value");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("retention", "--size", "big")))
        .hasMessageContaining("--size");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("sizesweep", "--sizes", "1,x")))
        .hasMessageContaining("--sizes");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("bigwrite", "--buffer", "mapped")))
        .hasMessageContaining("heap, direct or both");
  }

  @Test
  void aFlagTakesNoValueAndMayBeTurnedOffExplicitly() {
    assertThat(BenchCommandParser.parse(List.of("proxyidle")).params().asMap())
        .containsEntry("tls", "false");
    BenchRequest on = BenchCommandParser.parse(List.of("proxyidle", "--tls", "--runs", "2"));
    assertThat(on.params().asMap()).containsEntry("tls", "true");
    assertThat(on.runs()).isEqualTo(2);
    assertThat(BenchCommandParser.parse(List.of("proxyidle", "--tls=false")).params().asMap())
        .containsEntry("tls", "false");
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("proxyidle", "--tls=yes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tls is a flag");
  }

  @Test
  void theProxyWorkloadsHaveTheHaproxyArm() {
    assertThat(BenchCommandParser.parse(List.of("proxyidle", "--impl", "haproxy")).impls())
        .containsExactly(Impl.HAPROXY);
    assertThatThrownBy(() -> BenchCommandParser.parse(List.of("tlsidle", "--impl", "haproxy")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tlsidle has no arm haproxy");
  }
}
