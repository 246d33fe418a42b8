package dev.sluice.proxy.proxyprotocol;

import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.ascii;
import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.echoAddress;
import static dev.sluice.proxy.proxyprotocol.AcceptProxyProtocolTest.timeoutMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.service.ProxyService;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Interop with Debian's real HAProxy, both ways, judged by what each side logs. HAProxy in front
 * ({@code send-proxy}, {@code send-proxy-v2} on its server line): Sluice's access log names the
 * client HAProxy saw. Sluice in front (a cluster sending v1 or v2) of HAProxy's {@code bind ...
 * accept-proxy}: HAProxy's log names the client Sluice saw, and with v2 after TLS termination the
 * authority (SNI) Sluice put in its TLV. The clients connect from 127.0.0.2 or .3, so that the
 * original client's address differs from that of the proxy in between (127.0.0.1).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HaproxyInteropTest {
  @TempDir Path dir;

  private static final String GLOBAL =
      """
      global
        log stdout format raw local0
      defaults
        mode tcp
        log global
        timeout connect 5s
        timeout client 30s
        timeout server 30s
      """;

  @Test
  void haproxySendingV1AndV2ToSluiceGivesSluicesAccessLogTheRealClient() throws Exception {
    int v1Port = freePort();
    int v2Port = freePort();
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        ProxyService sluice =
            start(
                """
                listeners:
                  - name: behind
                    address: 127.0.0.1:0
                    cluster: echo
                    proxyProtocol: {trustedSources: [127.0.0.1/32], timeout: 5s}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                accessLog: {path: access.log}
                """
                    .formatted(echoAddress(echo)))) {
      int sluicePort =
          ((InetSocketAddress) sluice.runtime().listener("behind").boundAddress()).getPort();
      String haproxyConfig =
          GLOBAL
              + """
              frontend v1
                bind 127.0.0.1:%d
                log-format "seen %%ci:%%cp via v1"
                default_backend sluice_v1
              frontend v2
                bind 127.0.0.1:%d
                log-format "seen %%ci:%%cp via v2"
                default_backend sluice_v2
              backend sluice_v1
                server sluice 127.0.0.1:%d send-proxy
              backend sluice_v2
                server sluice 127.0.0.1:%d send-proxy-v2
              """
                  .formatted(v1Port, v2Port, sluicePort, sluicePort);
      try (Haproxy haproxy = Haproxy.start(dir, haproxyConfig, v1Port, v2Port)) {
        for (String version : List.of("v1", "v2")) {
          int port = version.equals("v1") ? v1Port : v2Port;
          String client = echoFrom("127.0.0.2", new InetSocketAddress("127.0.0.1", port), "hi");
          assertThat(haproxy.awaitLine("seen " + client + " via " + version)).isNotNull();
          Map<String, Object> line = awaitAccessLine(dir.resolve("access.log"), client);
          assertThat(line.get("listener")).isEqualTo("behind");
          assertThat(line.get("bytes_from_client")).isEqualTo(2);
        }
      }
    }
  }

  @Test
  void sluiceSendingV1AndV2ToHaproxyGivesHaproxysLogTheRealClientAndTheAuthority()
      throws Exception {
    TestPki pki = TestPki.get();
    int haproxyPort = freePort();
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      String haproxyConfig =
          GLOBAL
              + """
              frontend accepting
                bind 127.0.0.1:%d accept-proxy
                log-format "seen %%ci:%%cp authority %%[fc_pp_authority]"
                default_backend echo
              backend echo
                server echo %s
              """
                  .formatted(haproxyPort, echoAddress(echo));
      try (Haproxy haproxy = Haproxy.start(dir, haproxyConfig, haproxyPort);
          ProxyService sluice =
              start(
                  """
                  listeners:
                    - {name: v1, address: 127.0.0.1:0, cluster: haproxy_v1}
                    - {name: v2, address: 127.0.0.1:0, cluster: haproxy_v2}
                    - name: tls
                      address: 127.0.0.1:0
                      cluster: haproxy_v2
                      tls: {certificates: [{cert: "%s", key: "%s"}]}
                  clusters:
                    - {name: haproxy_v1, upstreams: [{address: "127.0.0.1:%d"}], proxyProtocol: v1}
                    - {name: haproxy_v2, upstreams: [{address: "127.0.0.1:%d"}], proxyProtocol: v2}
                  accessLog: {path: access.log}
                  """
                      .formatted(pki.serverCert, pki.serverKey, haproxyPort, haproxyPort))) {
        for (String listener : List.of("v1", "v2")) {
          SocketAddress front = sluice.runtime().listener(listener).boundAddress();
          String client = echoFrom("127.0.0.3", front, "through " + listener);
          assertThat(haproxy.awaitLine("seen " + client + " authority -")).isNotNull();
          assertThat(awaitAccessLine(dir.resolve("access.log"), client)).isNotNull();
        }
        InetSocketAddress tls = (InetSocketAddress) sluice.runtime().listener("tls").boundAddress();
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, pki.caTrust().trustManagers(), null);
        try (Socket raw = new Socket()) {
          raw.bind(new InetSocketAddress("127.0.0.3", 0));
          raw.connect(tls);
          raw.setSoTimeout(timeoutMillis());
          try (SSLSocket secure =
              (SSLSocket)
                  context.getSocketFactory().createSocket(raw, "localhost", tls.getPort(), true)) {
            SSLParameters p = secure.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName("localhost")));
            secure.setSSLParameters(p);
            secure.getOutputStream().write(ascii("secret"));
            secure.getOutputStream().flush();
            assertThat(secure.getInputStream().readNBytes(6)).isEqualTo(ascii("secret"));
          }
          String client = "127.0.0.3:" + raw.getLocalPort();
          assertThat(haproxy.awaitLine("seen " + client + " authority localhost")).isNotNull();
        }
      }
    }
  }

  // ---- helpers ----

  /** Echoes {@code text} through {@code to} from a socket bound on {@code from}; its address. */
  private static String echoFrom(String from, SocketAddress to, String text) throws IOException {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(from, 0));
      s.connect(to);
      s.setSoTimeout(timeoutMillis());
      s.getOutputStream().write(ascii(text));
      assertThat(s.getInputStream().readNBytes(text.length())).isEqualTo(ascii(text));
      s.shutdownOutput();
      assertThat(s.getInputStream().readAllBytes()).isEmpty();
      return from + ":" + s.getLocalPort();
    }
  }

  private ProxyService start(String yaml) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, yaml);
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> awaitAccessLine(Path log, String client) {
    List<Map<String, Object>> found = new ArrayList<>();
    Await.until(
        () -> {
          found.clear();
          try {
            if (Files.exists(log)) {
              for (String line : Files.readAllLines(log)) {
                Map<String, Object> parsed =
                    (Map<String, Object>)
                        new Load(LoadSettings.builder().build()).loadFromString(line);
                if (client.equals(parsed.get("client"))) {
                  found.add(parsed);
                }
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return !found.isEmpty();
        },
        () -> "an access log line for client " + client);
    return found.getFirst();
  }

  /** A foreground HAProxy ({@code -db}) whose log (on its stdout) the test reads. */
  private static final class Haproxy implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private Haproxy(Process process) {
      this.process = process;
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = out.readLine()) != null) {
                    lines.add(line);
                  }
                } catch (IOException gone) {
                  // the process ended
                }
              });
    }

    static Haproxy start(Path dir, String config, int... ports) throws Exception {
      Path binary = find();
      Path file = dir.resolve("haproxy-" + System.nanoTime() + ".cfg");
      Files.writeString(file, config);
      Process check =
          new ProcessBuilder(binary.toString(), "-c", "-f", file.toString())
              .redirectErrorStream(true)
              .start();
      String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(check.exitValue()).as("haproxy -c: " + checked).isZero();
      Haproxy haproxy =
          new Haproxy(
              new ProcessBuilder(binary.toString(), "-db", "-f", file.toString())
                  .redirectErrorStream(true)
                  .start());
      for (int port : ports) {
        Await.until(
            () -> haproxy.listening(port),
            () -> "haproxy to listen on " + port + ": " + haproxy.lines);
      }
      return haproxy;
    }

    /** Whether something listens on {@code port}: binding it ourselves fails. */
    private boolean listening(int port) {
      if (!process.isAlive()) {
        throw new AssertionError("haproxy exited: " + lines);
      }
      try (ServerSocket probe = new ServerSocket()) {
        probe.setReuseAddress(false);
        probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return false;
      } catch (IOException inUse) {
        return true;
      }
    }

    private static Path find() {
      List<String> dirs = new ArrayList<>();
      String path = System.getenv("PATH");
      if (path != null) {
        dirs.addAll(List.of(path.split(java.io.File.pathSeparator)));
      }
      dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
      for (String d : dirs) {
        Path candidate = Path.of(d, "haproxy");
        if (!d.isEmpty() && Files.isExecutable(candidate)) {
          return candidate;
        }
      }
      throw new IllegalStateException(
          "the PROXY protocol interop tests need HAProxy (Debian package: haproxy)");
    }

    String awaitLine(String text) {
      Await.until(
          () -> lines.stream().anyMatch(l -> l.contains(text)),
          () -> "haproxy to log '" + text + "'; it logged: " + lines);
      return lines.stream().filter(l -> l.contains(text)).findFirst().orElseThrow();
    }

    @Override
    public void close() {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
