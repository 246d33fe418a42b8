package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.Commands.Result;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.TlsEchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy with the clients and servers people really put around one, from Debian's packages: curl
 * and openssl s_client through TLS termination and through passthrough, and a mosquitto broker
 * behind the proxy with mosquitto_sub and mosquitto_pub clients, plain and over TLS (seed 004's
 * MQTT case).
 */
class RealClientsTest {
  private static final String BODY = "hello through sluice\n";

  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }

  private static int port(ProxyFixture proxy, String listener) {
    return ((InetSocketAddress) proxy.address(listener)).getPort();
  }

  private static Result run(List<String> command, String stdin) throws Exception {
    return Commands.run(command, stdin);
  }

  // ---- curl and openssl ----

  @Test
  void curlThroughTlsTerminationToAPlainHttpUpstream() throws Exception {
    TestPki.requireTool("curl", "--version");
    try (HttpUpstream http = new HttpUpstream(null);
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: https
                    address: 127.0.0.1:0
                    cluster: web
                    tls: {certificates: [{cert: "%s", key: "%s"}], alpn: [http/1.1]}
                clusters:
                  - {name: web, upstreams: [{address: "127.0.0.1:%d"}]}
                """
                    .formatted(pki.serverCert, pki.serverKey, http.port()),
                dir)) {
      int port = port(proxy, "https");
      assertCurlGetsTheBody(port);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().applicationProtocol()).isEqualTo("http/1.1");
      assertThat(pair.facts().serverName()).isEqualTo("localhost");
    }
  }

  @Test
  void curlThroughPassthroughToAnHttpsUpstream() throws Exception {
    TestPki.requireTool("curl", "--version");
    try (HttpUpstream https = new HttpUpstream(pki);
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: pass
                    address: 127.0.0.1:0
                    sni: [{match: localhost, cluster: web}]
                    tls: {passthrough: true}
                clusters:
                  - {name: web, upstreams: [{address: "127.0.0.1:%d"}]}
                """
                    .formatted(https.port()),
                dir)) {
      int port = port(proxy, "pass");
      assertCurlGetsTheBody(port);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.facts().serverName()).isEqualTo("localhost");
      assertThat(pair.facts().applicationProtocol())
          .as("the ALPN curl offered, read from its ClientHello")
          .isNotNull();
    }
  }

  @Test
  void opensslClientsThroughTerminationAndPassthrough() throws Exception {
    TestPki.requireTool("openssl", "version");
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0));
        TlsEchoServer tlsEcho = new TlsEchoServer(pki.serverKeyMaterial());
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: term
                    address: 127.0.0.1:0
                    cluster: echo
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                  - name: pass
                    address: 127.0.0.1:0
                    sni: [{match: localhost, cluster: tlsecho}]
                    tls: {passthrough: true}
                clusters:
                  - {name: echo, upstreams: [{address: "127.0.0.1:%d"}]}
                  - {name: tlsecho, upstreams: [{address: "127.0.0.1:%d"}]}
                timeouts: {idle: 1s}
                """
                    .formatted(
                        pki.serverCert,
                        pki.serverKey,
                        ((InetSocketAddress) echo.address()).getPort(),
                        tlsEcho.port()),
                dir)) {
      for (String listener : List.of("term", "pass")) {
        // -ign_eof: keep reading after stdin ends; the proxy's idle timeout ends the session.
        Result client =
            run(
                List.of(
                    "openssl",
                    "s_client",
                    "-connect",
                    "127.0.0.1:" + port(proxy, listener),
                    "-servername",
                    "localhost",
                    "-CAfile",
                    pki.caCert.toString(),
                    "-verify_return_error",
                    "-quiet",
                    "-ign_eof"),
                "ping through " + listener + "\n");
        assertThat(client.output()).as(listener).contains("ping through " + listener);
      }
      List<Pair> pairs = proxy.awaitClosed(2);
      assertThat(pairs).extracting(Pair::cause).containsOnly(CloseCause.IDLE_TIMEOUT);
    }
  }

  // ---- mosquitto ----

  @Test
  void mqttSubscribersAndPublishersThroughTheProxyPlainAndTls() throws Exception {
    // Debian puts the broker in /usr/sbin, which a non-root PATH may lack.
    String mosquitto =
        Files.isExecutable(Path.of("/usr/sbin/mosquitto")) ? "/usr/sbin/mosquitto" : "mosquitto";
    TestPki.requireTool(mosquitto, "-h");
    TestPki.requireTool("mosquitto_sub", "--help");
    int brokerPort = freePort();
    Path brokerConfig = dir.resolve("mosquitto.conf");
    Files.writeString(
        brokerConfig, "listener " + brokerPort + " 127.0.0.1\nallow_anonymous true\n");
    Process broker =
        new ProcessBuilder(mosquitto, "-c", brokerConfig.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("mosquitto.log").toFile())
            .start();
    try (ProxyFixture proxy =
        ProxyFixture.start(
            """
            listeners:
              - name: mqtt
                address: 127.0.0.1:0
                cluster: broker
              - name: mqtts
                address: 127.0.0.1:0
                cluster: broker
                tls: {certificates: [{cert: "%s", key: "%s"}]}
            clusters:
              - {name: broker, upstreams: [{address: "127.0.0.1:%d"}]}
            """
                .formatted(pki.serverCert, pki.serverKey, brokerPort),
            dir)) {
      awaitListening(brokerPort);
      String mqtt = Integer.toString(port(proxy, "mqtt"));
      String mqtts = Integer.toString(port(proxy, "mqtts"));
      List<String> tls = List.of("--cafile", pki.caCert.toString(), "--tls-version", "tlsv1.3");
      // Ten subscribers, half over TLS, each to take three messages and exit.
      List<Process> subscribers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        List<String> command =
            new ArrayList<>(
                List.of(
                    "mosquitto_sub",
                    "-h",
                    i % 2 == 0 ? "127.0.0.1" : "localhost",
                    "-p",
                    i % 2 == 0 ? mqtt : mqtts,
                    "-t",
                    "sluice/test",
                    "-C",
                    "3",
                    "-q",
                    "1",
                    "-i",
                    "sub" + i));
        if (i % 2 == 1) {
          command.addAll(tls);
        }
        subscribers.add(new ProcessBuilder(command).redirectErrorStream(true).start());
      }
      Await.until(
          () ->
              proxy.listener("mqtt").stats().openCount()
                      + proxy.listener("mqtts").stats().openCount()
                  >= 10,
          () -> "ten subscribers connected through the proxy");
      Thread.sleep(500); // their SUBSCRIBEs reach the broker
      for (int m = 0; m < 3; m++) {
        List<String> publish =
            new ArrayList<>(
                List.of(
                    "mosquitto_pub",
                    "-h",
                    "localhost",
                    "-p",
                    m % 2 == 0 ? mqtt : mqtts,
                    "-t",
                    "sluice/test",
                    "-q",
                    "1",
                    "-m",
                    "message " + m));
        if (m % 2 == 1) {
          publish.addAll(tls);
        }
        Result pub = run(publish, "");
        assertThat(pub.exit()).as(pub.output()).isZero();
      }
      for (Process sub : subscribers) {
        assertThat(sub.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String out = new String(sub.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out.lines()).containsExactly("message 0", "message 1", "message 2");
        assertThat(sub.exitValue()).isZero();
      }
      proxy.awaitClosed(13);
      assertThat(proxy.closedPairs())
          .extracting(Pair::cause)
          .allMatch(c -> c == CloseCause.CLIENT_EOF || c == CloseCause.UPSTREAM_EOF);
    } finally {
      broker.destroy();
      broker.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void awaitListening(int port) {
    Await.until(
        () -> {
          try {
            new java.net.Socket("127.0.0.1", port).close();
            return true;
          } catch (IOException e) {
            return false;
          }
        },
        () -> "the broker to listen on " + port);
  }

  // ---- upstreams ----

  /** A one-response HTTP/1.1 server (over the core's TLS when given a PKI). */
  private static final class HttpUpstream implements AutoCloseable {
    private final EventLoopGroup group =
        new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    private final Listener listener;

    HttpUpstream(TestPki tls) throws Exception {
      InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
      listener =
          tls == null
              ? group.listen(any, SocketOptions.defaults(), Responder::new)
              : TlsServer.create(TlsServerConfig.of(tls.serverKeyMaterial()))
                  .listen(group, any, SocketOptions.defaults(), Responder::new);
    }

    int port() {
      return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
      listener.close();
      group.close();
    }
  }

  /** Answers the first request it has read whole (up to the blank line), then closes. */
  private static final class Responder implements ConnectionHandler {
    private final StringBuilder request = new StringBuilder();
    private boolean answered;

    @Override
    public void onRead(Connection c, BorrowedBytes bytes) {
      request.append(StandardCharsets.ISO_8859_1.decode(bytes.buffer()));
      if (!answered && request.indexOf("\r\n\r\n") >= 0) {
        answered = true;
        byte[] body = BODY.getBytes(StandardCharsets.US_ASCII);
        String head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n";
        c.write(ByteBuffer.wrap((head + BODY).getBytes(StandardCharsets.US_ASCII)));
        c.shutdownOutput();
      }
    }
  }

  /** curl asks https://localhost:PORT/ through the proxy, verifying against the test CA. */
  private void assertCurlGetsTheBody(int port) throws Exception {
    Result curl =
        run(
            List.of(
                "curl",
                "-sS",
                "--fail",
                "--cacert",
                pki.caCert.toString(),
                "--resolve",
                "localhost:" + port + ":127.0.0.1",
                "https://localhost:" + port + "/"),
            "");
    assertThat(curl.exit()).as(curl.output()).isZero();
    assertThat(curl.output()).isEqualTo(BODY);
  }
}
