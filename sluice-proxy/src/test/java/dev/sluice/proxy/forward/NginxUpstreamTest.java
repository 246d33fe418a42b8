package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.Executables;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's nginx as the upstream of an HTTP listener, curl as the client: keep-alive on both sides,
 * a chunked upload stored whole, and the request as nginx saw it after the listener's rewrite.
 * nginx runs unprivileged in the foreground from a configuration in the test's directory, on a free
 * loopback port.
 */
class NginxUpstreamTest {
  @TempDir Path dir;

  private Process nginx;
  private int nginxPort;

  @BeforeEach
  void startNginx() throws Exception {
    Optional<Path> binary = Executables.find("nginx");
    assumeTrue(binary.isPresent(), "nginx is not installed (Debian package: nginx)");
    nginxPort = FreePorts.loopback();
    Files.createDirectories(dir.resolve("www/upload"));
    Path config =
        Files.writeString(
            dir.resolve("nginx.conf"),
            """
            daemon off;
            master_process off;
            worker_processes 1;
            pid %1$s/nginx.pid;
            error_log %1$s/error.log info;
            events { worker_connections 64; }
            http {
              log_format seen '$request|$http_transfer_encoding|$http_content_length';
              access_log %1$s/access.log seen;
              client_body_temp_path %1$s/client_body;
              proxy_temp_path %1$s/proxy;
              fastcgi_temp_path %1$s/fastcgi;
              uwsgi_temp_path %1$s/uwsgi;
              scgi_temp_path %1$s/scgi;
              default_type text/plain;
              server {
                listen 127.0.0.1:%2$d;
                location = /fixed { return 200 "a fixed body\\n"; }
                location = /headers {
                  return 200 "$http_x_forwarded_for|$http_x_env|$http_x_debug|$http_host|$connection_requests\\n";
                }
                location /upload/ { root %1$s/www; dav_methods PUT; client_max_body_size 16m; }
              }
            }
            """
                .formatted(dir, nginxPort));
    nginx =
        new ProcessBuilder(
                binary.get().toString(),
                "-p",
                dir.toString(),
                "-c",
                config.toString(),
                "-e",
                dir.resolve("error.log").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nginx.out").toFile())
            .start();
    Await.until(this::nginxListens, () -> "nginx to listen on " + nginxPort + ": " + errors());
  }

  @AfterEach
  void stopNginx() throws InterruptedException {
    if (nginx != null) {
      nginx.destroy();
      if (!nginx.waitFor(10, TimeUnit.SECONDS)) {
        nginx.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private boolean nginxListens() {
    if (!nginx.isAlive()) {
      throw new AssertionError("nginx exited " + nginx.exitValue() + ": " + errors());
    }
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), nginxPort)) {
      return s.isConnected();
    } catch (IOException notYet) {
      return false;
    }
  }

  private String errors() {
    try {
      Path log = dir.resolve("error.log");
      return (Files.exists(log) ? Files.readString(log) : "")
          + Files.readString(dir.resolve("nginx.out"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private ProxyFixture proxy() throws Exception {
    return ProxyFixture.start(
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            protocol: http
            cluster: web
            http:
              requestHeaders: {set: {X-Env: prod}, remove: [X-Debug]}
              responseHeaders: {remove: [Server]}
        clusters:
          - name: web
            upstreams: [{address: "127.0.0.1:%d"}]
        """
            .formatted(nginxPort),
        dir);
  }

  private static String base(ProxyFixture proxy) {
    return "http://127.0.0.1:" + ((InetSocketAddress) proxy.address("front")).getPort();
  }

  @Test
  void twoRequestsShareOneConnectionOnEachSideAndNginxSeesTheRewrite() throws Exception {
    try (ProxyFixture proxy = proxy()) {
      String url = base(proxy) + "/headers";
      Commands.Result curl =
          Commands.run(
              List.of(
                  "curl",
                  "-s",
                  "-w",
                  "connects=%{num_connects}\\n",
                  "-H",
                  "X-Forwarded-For: 6.6.6.6",
                  "-H",
                  "X-Debug: 1",
                  url,
                  url),
              "");
      assertThat(curl.exit()).as(curl.output()).isZero();
      String host = url.substring("http://".length(), url.indexOf("/headers"));
      // nginx's $connection_requests counts the second request on the same upstream connection;
      // curl connected once. X-Forwarded-For is the proxy's, X-Env set, X-Debug removed.
      assertThat(curl.output().lines())
          .containsExactly(
              "127.0.0.1|prod||" + host + "|1",
              "connects=1",
              "127.0.0.1|prod||" + host + "|2",
              "connects=0");
      assertThat(proxy.awaitClosed(1)).hasSize(1);
    }
  }

  @Test
  void aFixedBodyComesBackWithoutTheRemovedResponseField() throws Exception {
    try (ProxyFixture proxy = proxy()) {
      Commands.Result curl = Commands.run(List.of("curl", "-s", "-i", base(proxy) + "/fixed"), "");
      assertThat(curl.exit()).as(curl.output()).isZero();
      assertThat(curl.output())
          .startsWith("HTTP/1.1 200 OK\r\n")
          .contains("\r\nContent-Length: 13\r\n")
          .endsWith("\r\n\r\na fixed body\n")
          .doesNotContainIgnoringCase("server:");
    }
  }

  @Test
  void aChunkedUploadFromStdinIsStoredWhole() throws Exception {
    StringBuilder payload = new StringBuilder();
    for (int i = 0; payload.length() < 300_000; i++) {
      payload.append("line ").append(i).append('\n');
    }
    try (ProxyFixture proxy = proxy()) {
      Commands.Result curl =
          Commands.run(
              List.of(
                  "curl",
                  "-s",
                  "-o",
                  "/dev/null",
                  "-w",
                  "%{http_code}",
                  "-T",
                  "-",
                  base(proxy) + "/upload/file.txt"),
              payload.toString());
      assertThat(curl.output()).isEqualTo("201");
      assertThat(Files.readString(dir.resolve("www/upload/file.txt")))
          .isEqualTo(payload.toString());
      // It came chunked (curl -T - cannot know the length), not re-framed with a length. nginx
      // logs a request once it is done with it, which can be after curl has read the response.
      Path log = dir.resolve("access.log");
      Await.until(() -> linesOf(log) > 0, () -> "a line in nginx's access log");
      assertThat(Files.readAllLines(log))
          .containsExactly("PUT /upload/file.txt HTTP/1.1|chunked|-");
    }
  }

  private static long linesOf(Path file) {
    try {
      return Files.readAllLines(file).size();
    } catch (IOException notYet) {
      return 0;
    }
  }
}
