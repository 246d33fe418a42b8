package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.ChildJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The suite runs twice, once per transport (the build's {@code nio-jdk} execution sets {@code
 * sluice.transport=nio}); this checks that each run is on the transport it claims, so that a silent
 * fall-back to NIO cannot pass for an epoll run.
 */
class TransportMatrixTest {

  @Test
  void theGroupRunsOnTheTransportThisRunIsFor() {
    Transport expected =
        "nio".equals(System.getProperty("sluice.transport")) ? Transport.NIO : Transport.EPOLL;
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      assertThat(group.transport()).isEqualTo(expected);
      assertThat(group.loops()).allSatisfy(l -> assertThat(l.transport()).isEqualTo(expected));
    }
  }

  @Test
  void autoFallsBackToNioWithoutNativeAccessAndEpollIsRefusedThere() throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(Duration.ofMinutes(1), List.of("-Xmx64m"), WithoutNativeAccess.class);
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.results())
        .containsEntry("auto", "nio")
        .containsEntry("epollRefused", "true")
        .containsEntry("why", "native access is not enabled");
  }

  @Test
  void namesAreReadInAnyCaseAndOthersRefused() {
    assertThat(Transport.of(" EPOLL ")).isEqualTo(Transport.EPOLL);
    assertThat(Transport.of("nio")).isEqualTo(Transport.NIO);
    assertThatThrownBy(() -> Transport.of("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("auto, epoll or nio");
  }

  /** A JVM started without --enable-native-access: auto must not touch the native calls. */
  public static final class WithoutNativeAccess {
    public static void main(String[] args) {
      try (EventLoopGroup group =
          new EventLoopGroup(
              TransportConfig.defaults().withEventLoops(1).withTransport(Transport.AUTO))) {
        ChildJvm.report("auto", group.transport().id());
      }
      try {
        Transport.EPOLL.resolve();
        ChildJvm.report("epollRefused", "false");
      } catch (IllegalStateException e) {
        ChildJvm.report("epollRefused", "true");
      }
      ChildJvm.report(
          "why",
          Transport.epollUnavailable().orElse("").startsWith("native access is not enabled")
              ? "native access is not enabled"
              : Transport.epollUnavailable().orElse(""));
    }
  }
}
