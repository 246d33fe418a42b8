package dev.sluice.bench.proxy;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.ChildFailedException;
import dev.sluice.bench.harness.Impl;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A proxy that goes away while jcmd looks inside it is reported as the proxy's failure, with its
 * exit code and last lines, not as jcmd's "non existent JVM pid" (all CI once showed of a proxy
 * that had died).
 */
class JcmdTest {

  @Test
  void aProxyThatExitsUnderJcmdIsReportedWithItsExitCodeAndOutput() throws Exception {
    // Not a JVM: jcmd fails on it, and it exits while jcmd runs or just after.
    List<String> command = List.of("sh", "-c", "echo going away; sleep 0.5; exit 3");
    try (ProxyProcess proxy =
        ProxyProcess.start(
            Impl.SLUICE,
            command,
            true,
            new InetSocketAddress("127.0.0.1", 9),
            Files.createTempDirectory("jcmd-test"))) {
      assertThatThrownBy(() -> Jcmd.run(proxy, "VM.version"))
          .isInstanceOf(ChildFailedException.class)
          .hasMessageContaining("exited (exit code 3)")
          .hasMessageContaining("going away");
    }
  }
}
