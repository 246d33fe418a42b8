package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TestPki;
import dev.sluice.testing.TlsTestBase;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Sluice against real TLS peers: openssl s_client, openssl s_server and curl. */
class TlsInteropTest extends TlsTestBase {

  /**
   * {@code openssl s_server} on a port of its choosing on 127.0.0.1 with the test PKI's server
   * certificate, and {@code options} after those; {@link #acceptPort} reads the port.
   */
  static Peer opensslServer(TestPki pki, String... options) throws IOException {
    TestPki.requireTool("openssl", "version");
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "openssl",
            "s_server",
            "-accept",
            "127.0.0.1:0",
            "-cert",
            pki.serverCert.toString(),
            "-key",
            pki.serverKey.toString()));
    command.addAll(List.of(options));
    return new Peer(command);
  }

  /** The port an {@link #opensslServer} said it accepts on. */
  static int acceptPort(Peer server) throws InterruptedException {
    return Integer.parseInt(server.awaitOutput("ACCEPT 127\\.0\\.0\\.1:(\\d+)").group(1));
  }

  /** A child process whose output is collected as it comes. */
  static final class Peer implements AutoCloseable {
    final Process process;
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;

    Peer(List<String> command) throws IOException {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
      InputStream in = process.getInputStream();
      reader =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    byte[] buffer = new byte[8192];
                    try {
                      for (int n; (n = in.read(buffer)) >= 0; ) {
                        output.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                      }
                    } catch (IOException ignored) {
                      // the process went away
                    }
                  });
    }

    void send(String text) throws IOException {
      OutputStream stdin = process.getOutputStream();
      stdin.write(text.getBytes(StandardCharsets.US_ASCII));
      stdin.flush();
    }

    /** Waits until the output matches {@code regex}; returns the match. */
    Matcher awaitOutput(String regex) throws InterruptedException {
      Pattern pattern = Pattern.compile(regex);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
      while (System.nanoTime() < deadline) {
        Matcher m = pattern.matcher(output);
        if (m.find()) {
          return m;
        }
        if (!process.isAlive() && !reader.isAlive()) {
          break;
        }
        Thread.sleep(10);
      }
      throw new AssertionError("no /" + regex + "/ in the output of the peer:\n" + output);
    }

    int awaitExit() throws InterruptedException {
      assertThat(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
          .as("the peer exits; its output so far:\n%s", output)
          .isTrue();
      reader.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      return process.exitValue();
    }

    String output() {
      return output.toString();
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  /** Answers each "ping" line with "pong", then ends its output (close_notify + FIN). */
  static final class PingPong extends RecordingHandler {
    @Override
    protected void onBytes(Connection connection, byte[] bytes) {
      super.onBytes(connection, bytes);
      if (text().contains("ping\n")) {
        connection.write(ByteBuffer.wrap("pong\n".getBytes(StandardCharsets.US_ASCII)));
        connection.shutdownOutput();
      }
    }
  }

  private static int port(Listener listener) {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void opensslClientAgainstASluiceServer(String protocol) throws Exception {
    TestPki.requireTool("openssl", "version");
    EventLoopGroup group = group();
    PingPong server = new PingPong();
    Listener listener =
        listen(group, serverConfig().withApplicationProtocols("sluice/1"), () -> server);
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + port(listener),
                "-servername",
                "localhost",
                "-CAfile",
                pki.caCert.toString(),
                "-verify_return_error",
                "-alpn",
                "sluice/1",
                "-brief",
                protocol.equals("TLSv1.3") ? "-tls1_3" : "-tls1_2"));
    try (Peer client = new Peer(command)) {
      client.awaitOutput("CONNECTION ESTABLISHED");
      client.send("ping\n");
      client.awaitOutput("pong");
      assertThat(client.awaitExit()).isZero();
      assertThat(client.output())
          .contains("Protocol version: " + protocol)
          .contains("Verification: OK");
    }
    TlsConnection connection = await(server.tlsActive());
    assertThat(connection.session().getProtocol()).isEqualTo(protocol);
    assertThat(connection.applicationProtocol()).isEqualTo("sluice/1");
    assertThat(server.text()).isEqualTo("ping\n");
    CloseReason reason = await(server.closed());
    assertThat(reason).isEqualTo(CloseReason.NORMAL);
  }

  @Test
  void opensslClientWithACertificateAgainstAMutualTlsServer() throws Exception {
    EventLoopGroup group = group();
    PingPong server = new PingPong();
    Listener listener =
        listen(
            group, serverConfig().withClientAuth(ClientAuth.REQUIRED, pki.caTrust()), () -> server);
    try (Peer client =
        new Peer(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + port(listener),
                "-servername",
                "localhost",
                "-CAfile",
                pki.caCert.toString(),
                "-cert",
                pki.clientCert.toString(),
                "-key",
                pki.clientKey.toString(),
                "-verify_return_error",
                "-brief"))) {
      client.awaitOutput("CONNECTION ESTABLISHED");
      client.send("ping\n");
      client.awaitOutput("pong");
      assertThat(client.awaitExit()).isZero();
    }
    TlsConnection connection = await(server.tlsActive());
    assertThat(connection.session().getPeerPrincipal().getName()).isEqualTo("CN=test-client");
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void sluiceClientAgainstOpensslServer(String protocol) throws Exception {
    TestPki.requireTool("openssl", "version");
    EventLoopGroup group = group();
    try (Peer server =
        opensslServer(
            pki,
            "-naccept",
            "1",
            "-Verify",
            "1",
            "-CAfile",
            pki.caCert.toString(),
            "-www",
            protocol.equals("TLSv1.3") ? "-tls1_3" : "-tls1_2")) {
      int port = acceptPort(server);
      RecordingHandler client = new RecordingHandler();
      TlsConnection connection =
          await(
              TlsClient.create(
                      clientConfig()
                          .withClientKey(KeyMaterial.fromPem(pki.clientCert, pki.clientKey)))
                  .connect(
                      group,
                      new InetSocketAddress("127.0.0.1", port),
                      SocketOptions.defaults(),
                      client));
      assertThat(connection.session().getProtocol()).isEqualTo(protocol);
      await(
          connection.write(
              ByteBuffer.wrap("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
      await(client.endOfInput()); // s_server -www ends its answer with close_notify
      assertThat(client.text()).startsWith("HTTP/1.0 200 ok").contains("test-client");
      assertThat(await(client.closed())).isEqualTo(CloseReason.NORMAL);
      assertThat(client.violations()).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void curlAgainstASluiceServer(String protocol) throws Exception {
    TestPki.requireTool("curl", "--version");
    EventLoopGroup group = group();
    String body = "hello from sluice over " + protocol + "\n";
    CompletableFuture<String> request = new CompletableFuture<>();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          protected void onBytes(Connection connection, byte[] bytes) {
            super.onBytes(connection, bytes);
            if (text().contains("\r\n\r\n") && request.complete(text())) {
              String response =
                  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                      + body.length()
                      + "\r\nConnection: close\r\n\r\n"
                      + body;
              connection.write(ByteBuffer.wrap(response.getBytes(StandardCharsets.US_ASCII)));
              connection.shutdownOutput();
            }
          }
        };
    Listener listener =
        listen(
            group,
            serverConfig().withProtocols(protocol).withApplicationProtocols("http/1.1"),
            () -> server);
    int port = port(listener);
    try (Peer curl =
        new Peer(
            List.of(
                "curl",
                "--silent",
                "--show-error",
                "--cacert",
                pki.caCert.toString(),
                "--resolve",
                "localhost:" + port + ":127.0.0.1",
                "https://localhost:" + port + "/hello"))) {
      assertThat(curl.awaitExit()).as(curl.output()).isZero();
      assertThat(curl.output()).isEqualTo(body);
    }
    assertThat(await(request)).startsWith("GET /hello HTTP/1.1\r\n").contains("Host: localhost");
    TlsConnection connection = await(server.tlsActive());
    assertThat(connection.applicationProtocol()).isEqualTo("http/1.1");
    assertThat(connection.session().getProtocol()).isEqualTo(protocol);
    assertThat(await(server.closed())).isEqualTo(CloseReason.NORMAL);
  }
}
