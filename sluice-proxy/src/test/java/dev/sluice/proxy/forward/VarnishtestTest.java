package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.Executables;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.FreePorts;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP/1 listener's framing and smuggling cases end to end, as varnishtest scripts ({@code
 * src/test/resources/vtc}, one case a file) run by Debian's {@code varnishtest} on its own, without
 * varnishd: each script's {@code client} talks to one Sluice HTTP listener ({@code ${sluice}}) and
 * its {@code server s1} plays the upstream, listening where the listener's cluster points ({@code
 * ${upstream}}). One proxy serves every script, one script at a time (they share the upstream's
 * port); each is a test of its own, failed with varnishtest's log.
 */
class VarnishtestTest {
  /**
   * What one script may take before varnishtest fails it (a case that passes takes milliseconds).
   */
  private static final String SCRIPT_TIMEOUT_SECONDS = "20";

  @TempDir Path dir;

  @TestFactory
  Stream<DynamicTest> eachScriptPasses() throws Exception {
    Optional<Path> varnishtest = Executables.find("varnishtest");
    assumeTrue(varnishtest.isPresent(), "varnishtest is not installed (Debian package: varnish)");
    List<Path> scripts = scripts();
    assertThat(scripts).isNotEmpty();
    int upstreamPort = FreePorts.loopback();
    ProxyFixture proxy =
        ProxyFixture.start(
            """
            listeners:
              - name: front
                address: 127.0.0.1:0
                protocol: http
                cluster: web
            clusters:
              - name: web
                upstreams: [{address: "127.0.0.1:%d"}]
            """
                .formatted(upstreamPort),
            dir);
    int port = ((InetSocketAddress) proxy.address("front")).getPort();
    // The stream is closed once every script has run: the proxy goes with it.
    return scripts.stream()
        .map(
            script ->
                DynamicTest.dynamicTest(
                    script.getFileName().toString(),
                    script.toUri(),
                    () -> {
                      Commands.Result run =
                          Commands.run(
                              List.of(
                                  varnishtest.get().toString(),
                                  "-t",
                                  SCRIPT_TIMEOUT_SECONDS,
                                  "-Dsluice=127.0.0.1 " + port,
                                  "-Dupstream=127.0.0.1 " + upstreamPort,
                                  script.toString()),
                              "");
                      assertThat(run.exit()).as(run.output()).isZero();
                      assertThat(run.output()).contains("passed");
                    }))
        .onClose(proxy::close);
  }

  private static List<Path> scripts() throws URISyntaxException, java.io.IOException {
    Path vtc = Path.of(VarnishtestTest.class.getResource("/vtc").toURI());
    try (Stream<Path> files = Files.list(vtc)) {
      return files.filter(f -> f.toString().endsWith(".vtc")).sorted().toList();
    }
  }
}
