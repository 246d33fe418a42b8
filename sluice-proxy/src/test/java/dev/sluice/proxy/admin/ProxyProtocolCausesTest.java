package dev.sluice.proxy.admin;

import static dev.sluice.proxy.testing.AdminClient.series;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * What an operator sees of PROXY protocol headers: each failure counted by its cause in the metrics
 * and written to the access log with its reason, and a good header's client in the log.
 */
class ProxyProtocolCausesTest {
  @TempDir Path dir;

  @Test
  void headerFailuresAreCountedByCauseAndLoggedWithTheirReason() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: behind
              address: 127.0.0.1:0
              cluster: echo
              proxyProtocol: {trustedSources: [127.0.0.0/8], timeout: 200ms}
            - name: nobody
              address: 127.0.0.1:0
              cluster: echo
              proxyProtocol: {trustedSources: [192.0.2.0/24]}
          clusters:
            - {name: echo, upstreams: [{address: "%s"}]}
          accessLog: {path: access.log}
          admin: {address: 127.0.0.1:0}
          """
              .formatted(Endpoint.format(echo.address())));
      try (ProxyService service =
          ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {})) {
        SocketAddress behind = service.runtime().listener("behind").boundAddress();
        SocketAddress nobody = service.runtime().listener("nobody").boundAddress();
        send(behind, "PROXY TCP4 198.51.100.9 192.0.2.1 4242 443\r\nok");
        send(behind, "PROXY TCP4 1.2.3\r\n");
        send(behind, "PROXY TCP4 198.51.100.9 "); // and then nothing: the timeout
        send(nobody, "PROXY TCP4 198.51.100.9 192.0.2.1 4242 443\r\n");

        List<Map<String, Object>> lines = awaitLines(dir.resolve("access.log"), 4);
        assertThat(lines)
            .anySatisfy(
                l -> {
                  assertThat(l.get("client")).isEqualTo("198.51.100.9:4242");
                  assertThat(l.get("cause")).isEqualTo("client_eof");
                });
        assertThat(lines)
            .anySatisfy(
                l -> {
                  assertThat(l.get("cause")).isEqualTo("proxy_protocol_invalid");
                  assertThat(l.get("detail").toString()).isNotBlank();
                });
        assertThat(lines)
            .anySatisfy(
                l -> {
                  assertThat(l.get("cause")).isEqualTo("proxy_protocol_timeout");
                  assertThat(l.get("detail").toString()).contains("within 200 ms");
                });
        assertThat(lines)
            .anySatisfy(
                l -> {
                  assertThat(l.get("listener")).isEqualTo("nobody");
                  assertThat(l.get("cause")).isEqualTo("proxy_protocol_untrusted");
                  assertThat(l.get("client").toString()).startsWith("127.0.0.1:");
                });

        Map<String, Double> m = new AdminClient(service.admin().address()).scrape();
        for (String[] expected :
            new String[][] {
              {"behind", "proxy_protocol_invalid"},
              {"behind", "proxy_protocol_timeout"},
              {"nobody", "proxy_protocol_untrusted"},
            }) {
          assertThat(
                  m.get(
                      series(
                          "sluice_connections_closed_total",
                          "listener",
                          expected[0],
                          "cause",
                          expected[1])))
              .as("%s on %s", expected[1], expected[0])
              .isEqualTo(1.0);
        }
      }
    }
  }

  /** Sends {@code text}, half-closes when it is a whole exchange, and reads until the end. */
  private static void send(SocketAddress to, String text) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(to);
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
      if (text.endsWith("ok")) {
        s.shutdownOutput();
      }
      try {
        s.getInputStream().readAllBytes();
      } catch (IOException reset) {
        // a refused connection may be reset: either way it ended
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> awaitLines(Path log, int count) {
    List<Map<String, Object>> parsed = new ArrayList<>();
    Await.until(
        () -> {
          parsed.clear();
          try {
            if (Files.exists(log)) {
              for (String line : Files.readAllLines(log)) {
                parsed.add(
                    (Map<String, Object>)
                        new Load(LoadSettings.builder().build()).loadFromString(line));
              }
            }
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return parsed.size() >= count;
        },
        () -> count + " lines in " + log + ": " + parsed);
    return List.copyOf(parsed);
  }
}
