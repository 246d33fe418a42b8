package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every YAML example in the README is a configuration the proxy accepts. */
class ReadmeConfigTest {
  private static final Path README = Path.of("..", "README.md");

  @TempDir Path dir;

  @Test
  void everyYamlBlockOfTheReadmeParses() throws Exception {
    TestPki pki = TestPki.get();
    Files.copy(pki.serverCert, dir.resolve("server.crt"));
    Files.copy(pki.serverKey, dir.resolve("server.key"));
    List<String> blocks = new ArrayList<>();
    Matcher m =
        Pattern.compile("(?ms)^\\s*```yaml\\n(.*?)^\\s*```\\s*$").matcher(Files.readString(README));
    while (m.find()) {
      blocks.add(m.group(1));
    }
    assertThat(blocks).as("yaml blocks in the README").isNotEmpty();
    for (String block : blocks) {
      ProxyConfig config = ConfigReader.read(completed(block), "README.md", dir);
      assertThat(config.listeners()).isNotEmpty();
    }
  }

  /**
   * A block that shows only part of a file (clusters, the admin listener) is read inside the least
   * configuration around it: a listener, to its first cluster or to one of its own.
   */
  private static String completed(String block) {
    if (topLevel(block, "listeners")) {
      return block;
    }
    Matcher cluster = Pattern.compile("(?ms)^clusters:.*?name: *([\\w.-]+)").matcher(block);
    boolean hasClusters = topLevel(block, "clusters") && cluster.find();
    String target = hasClusters ? cluster.group(1) : "fragment";
    return "listeners: [{name: fragment, address: 127.0.0.1:7000, cluster: "
        + target
        + "}]\n"
        + (hasClusters
            ? ""
            : "clusters: [{name: fragment, upstreams: [{address: 127.0.0.1:7001}]}]\n")
        + block;
  }

  private static boolean topLevel(String block, String key) {
    return Pattern.compile("(?m)^" + key + ":").matcher(block).find();
  }
}
