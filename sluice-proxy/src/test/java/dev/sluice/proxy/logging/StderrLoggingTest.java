package dev.sluice.proxy.logging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.testing.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StderrLoggingTest {
  @TempDir Path dir;

  @Test
  void theProxyLogsInfoLinesOnStderrWithTimeLevelThreadAndLogger() throws Exception {
    int port = FreePorts.loopback();
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        listeners: [{name: front, address: "127.0.0.1:%d", cluster: up}]
        clusters: [{name: up, upstreams: [{address: "127.0.0.1:9"}]}]
        """
            .formatted(port));
    try (ChildProxy child = ChildProxy.run(file)) {
      child.awaitOutput("ListenerRuntime - listener front on");
      assertThat(child.output())
          .anyMatch(
              line ->
                  line.matches(
                      "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)"
                          + " INFO  \\[main\\] d\\.s\\.p\\.r\\.ListenerRuntime - listener front on"
                          + " .*"))
          // Logback prints its own status lines only when its configuration went wrong.
          .noneMatch(line -> line.contains("|-WARN") || line.contains("|-ERROR"));
    }
  }

  @Test
  void givesWayToALogbackFileNamedBySystemProperty() {
    String before = System.getProperty("logback.configurationFile");
    System.setProperty("logback.configurationFile", "elsewhere.xml");
    try {
      assertThat(StderrLogging.givenElsewhere()).isTrue();
    } finally {
      if (before == null) {
        System.clearProperty("logback.configurationFile");
      } else {
        System.setProperty("logback.configurationFile", before);
      }
    }
  }
}
