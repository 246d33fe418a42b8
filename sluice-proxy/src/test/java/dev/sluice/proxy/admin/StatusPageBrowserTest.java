package dev.sluice.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser (Debian's chromium, headless): the page it renders carries the
 * figures of the traffic the test made, and a screenshot of it is taken. With {@code
 * -Dsluice.screenshot=FILE} the screenshot is also copied there (the README's picture is made so).
 */
class StatusPageBrowserTest {
  @TempDir Path dir;

  @Test
  void theRenderedPageShowsTheTestsTrafficAndUpstreamStates() throws Exception {
    TestPki.requireTool("chromium", "--version");
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      int dead = deadPort();
      String yaml =
          """
          listeners:
            - {name: front, address: 127.0.0.1:0, cluster: app, maxConnections: 1000}
            - {name: broken, address: 127.0.0.1:0, cluster: gone}
          clusters:
            - name: app
              upstreams: [{address: "%s"}]
            - name: gone
              upstreams: [{address: "127.0.0.1:%d"}]
              retries: {tries: 1}
            - name: standby
              upstreams: [{address: "127.0.0.1:%d"}]
              healthCheck: {type: tcp, interval: 100ms, timeout: 100ms, fall: 1}
          buffers: {maxBytesInFlight: 16MiB}
          admin: {address: 127.0.0.1:0}
          """
              .formatted(Endpoint.format(echo.address()), dead, dead);
      // Named, not a file path: the page (and the README's screenshot) show "sluice.yaml".
      try (ProxyService service =
          ProxyService.start(ConfigReader.read(yaml, "sluice.yaml", dir), null, (l, pair) -> {})) {
        var front = service.runtime().listener("front").boundAddress();
        long sent = 0;
        for (int i = 1; i <= 3; i++) {
          assertThat(EchoClient.echo(front, EchoClient.Security.PLAIN, null, 20_000L * i, i).ok())
              .isTrue();
          sent += 20_000L * i;
        }
        try (Socket refused = new Socket()) {
          refused.connect(service.runtime().listener("broken").boundAddress());
          try {
            refused.getInputStream().readAllBytes();
          } catch (IOException reset) {
            // ended either way
          }
        }
        try (EchoClient.Streams held = EchoClient.open(front, EchoClient.Security.PLAIN, null)) {
          held.out.write(new byte[500]);
          held.out.flush();
          assertThat(held.in.readNBytes(500)).hasSize(500);
          sent += 500;
          Await.until(
              () -> service.runtime().listener("broken").stats().openCount() == 0,
              () -> "the refused pair ended");
          Await.until(
              () -> service.status().read().clusters().get(2).available() == 0,
              () -> "the standby upstream marked down");
          String url = new AdminClient(service.admin().address()).base() + "/";

          String dom = chromium("--dump-dom", url);
          List<String> frontRow = row(dom, "<tr><td><b>front</b>");
          // Name, Address, Mode, Active, Limit, Accepted, Conn/s, Max conn/s, From, To, ...
          assertThat(frontRow.get(3)).as("active").isEqualTo("1");
          assertThat(frontRow.get(4)).as("limit").isEqualTo("1000");
          assertThat(frontRow.get(5)).as("accepted").isEqualTo("4");
          assertThat(frontRow.get(8)).as("from clients").isEqualTo(Units.formatBytes(sent));
          assertThat(frontRow.get(9)).as("to clients").isEqualTo(Units.formatBytes(sent));
          List<String> refusedRow = row(dom, "<tr><td>broken</td>");
          assertThat(refusedRow).containsExactly("broken", "connect_refused", "1");
          assertThat(dom).contains("<span class=\"badge up\">UP</span>");
          assertThat(dom).contains("<span class=\"badge down\">DOWN</span>");
          assertThat(dom).contains("http-equiv=\"refresh\"");
          assertThat(dom).doesNotContain("<script");
          assertThat(dom).contains("forwarding age"); // the runtime dump lists the held pair

          Path png = dir.resolve("status-page.png");
          chromium("--screenshot=" + png, "--window-size=1280,1700", url);
          byte[] image = Files.readAllBytes(png);
          assertThat(image.length).as("a screenshot of some size").isGreaterThan(20_000);
          assertThat(new String(image, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
          String keep = System.getProperty("sluice.screenshot");
          if (keep != null && !keep.isBlank()) {
            Files.copy(png, Path.of(keep), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
  }

  /** The cells' text of the first table row that starts with {@code start}. */
  private static List<String> row(String dom, String start) {
    int at = dom.indexOf(start);
    assertThat(at).as("a row starting %s in the page", start).isNotNegative();
    String tr = dom.substring(at, dom.indexOf("</tr>", at));
    List<String> cells = new ArrayList<>();
    Matcher td = Pattern.compile("<td[^>]*>(.*?)</td>", Pattern.DOTALL).matcher(tr);
    while (td.find()) {
      cells.add(td.group(1).replaceAll("<[^>]+>", "").replace("&nbsp;", " ").strip());
    }
    return cells;
  }

  /** Runs headless chromium on {@code url}; returns what it prints on stdout. */
  private String chromium(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("chromium");
    command.add("--headless");
    command.add("--no-sandbox"); // CI runs as root
    command.add("--disable-gpu");
    command.add("--hide-scrollbars");
    command.add("--no-first-run");
    command.add("--user-data-dir=" + Files.createTempDirectory(dir, "chromium"));
    command.addAll(List.of(args));
    Path err = dir.resolve("chromium.err");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish: " + Files.readString(err));
    }
    assertThat(p.exitValue()).as("chromium's exit; it said: %s", Files.readString(err)).isZero();
    return new String(out, StandardCharsets.UTF_8);
  }

  private static int deadPort() throws IOException {
    return FreePorts.loopback();
  }
}
