package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoClient.Security;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A TLS client that closes while the pair still carries data, on TLS 1.3 (close_notify is a
 * half-close) and TLS 1.2 (it closes both directions at once): the pair ends, whatever the upstream
 * does next, and gives back everything it held.
 */
class TlsCloseForwardingTest {
  @TempDir Path dir;

  private final TestPki pki = TestPki.get();

  private String yaml(ScriptedUpstream upstream) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: up
            tls: {certificates: [{cert: "%s", key: "%s"}]}
        timeouts: {halfClose: 1s}
        clusters:
          - name: up
            upstreams: [{address: "%s"}]
        """
        .formatted(pki.serverCert, pki.serverKey, upstream.address());
  }

  @ParameterizedTest
  @EnumSource(
      value = Security.class,
      names = {"TLS", "TLS12"})
  void theClientClosesWhileTheUpstreamStillSends(Security version) throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream), dir)) {
      Socket server;
      try (EchoClient.Streams client =
          EchoClient.open(proxy.address("front"), version, "localhost")) {
        client.out.write('c');
        client.out.flush();
        server = upstream.next();
        assertThat(server.getInputStream().read()).isEqualTo('c');
        CompletableFuture<Void> streaming = stream(server);
        assertThat(client.in.readNBytes(256 * 1024)).hasSize(256 * 1024);
        assertThat(streaming).isNotDone();
      } // close_notify, while the upstream goes on sending
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause())
          .isIn(CloseCause.CLIENT_EOF, CloseCause.CLIENT_RESET, CloseCause.UNDELIVERABLE);
      Await.until(
          () -> proxy.runtime().budget().used() == 0,
          () -> proxy.runtime().budget().used() + " B still held");
      server.close();
    }
  }

  @Test
  void aTls12ClientsCloseNotifyWhileTheUpstreamSendsEndsThePair() throws Exception {
    // The client sends close_notify and keeps its socket open, reading nothing more: with TLS 1.2
    // that closes both directions, so the upstream's later bytes can go nowhere.
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream), dir);
        EchoClient.Streams client =
            EchoClient.open(proxy.address("front"), Security.TLS12, "localhost");
        Socket server = connectedUpstream(client, upstream)) {
      CompletableFuture<Void> streaming = stream(server);
      assertThat(client.in.readNBytes(256 * 1024)).hasSize(256 * 1024);
      client.shutdownOutput();
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isIn(CloseCause.CLIENT_EOF, CloseCause.UNDELIVERABLE);
      assertThat(pair.causeDetail()).contains("upstream's bytes could not be delivered");
      assertThat(streaming).succeedsWithin(Await.PATIENCE); // the upstream was reset
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Security.class,
      names = {"TLS", "TLS12"})
  void theClientClosesAndTheUpstreamNeitherSendsNorEnds(Security version) throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream), dir)) {
      EchoClient.Streams client = EchoClient.open(proxy.address("front"), version, "localhost");
      try (Socket server = connectedUpstream(client, upstream)) {
        client.close(); // close_notify; the upstream hears the end of input and stays silent
        assertThat(server.getInputStream().read()).isEqualTo(-1);
        Pair pair = proxy.awaitClosed(1).getFirst(); // not left in CLOSING for ever
        // The client's end, then the upstream's silence: the timeout is why the pair ended.
        assertThat(pair.cause()).isIn(CloseCause.HALF_CLOSE_TIMEOUT, CloseCause.CLIENT_RESET);
      }
    }
  }

  @Test
  void aTls12UpstreamsCloseNotifyWhileTheClientStillSendsEndsThePair() throws Exception {
    // The upstream leg over TLS 1.2: the server says close_notify (keeping its socket open, reading
    // nothing) while the client streams on. What the client sends next can go nowhere.
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (var in = java.nio.file.Files.newInputStream(pki.serverP12)) {
      store.load(in, TestPki.PASSWORD);
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, TestPki.PASSWORD);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    try (SSLServerSocket listening =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      listening.setEnabledProtocols(new String[] {"TLSv1.2"});
      try (ProxyFixture proxy =
              ProxyFixture.start(
                  """
                  listeners:
                    - {name: front, address: "127.0.0.1:0", cluster: secure}
                  clusters:
                    - name: secure
                      upstreams: [{address: "127.0.0.1:%d"}]
                      tls: {ca: "%s", serverName: localhost}
                  """
                      .formatted(listening.getLocalPort(), pki.caCert),
                  dir);
          EchoClient.Streams client =
              EchoClient.open(proxy.address("front"), Security.PLAIN, null)) {
        client.out.write('c');
        client.out.flush();
        try (SSLSocket server = (SSLSocket) listening.accept()) {
          server.setSoTimeout((int) Await.PATIENCE.toMillis());
          assertThat(server.getInputStream().read()).isEqualTo('c');
          assertThat(server.getSession().getProtocol()).isEqualTo("TLSv1.2");
          CompletableFuture<Void> streaming = new CompletableFuture<>();
          Thread.ofVirtual()
              .start(
                  () -> {
                    byte[] piece = new PayloadPattern(29).bytes(0, 64 * 1024);
                    try {
                      for (int i = 0; i < (1 << 14); i++) { // at most 1 GiB
                        client.out.write(piece);
                      }
                    } catch (IOException e) {
                      // the proxy ended the pair: what this test waits for
                    }
                    streaming.complete(null);
                  });
          server
              .getOutputStream()
              .write("bye".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          server.getOutputStream().flush();
          server.shutdownOutput(); // close_notify
          assertThat(client.in.readNBytes(3)).asString().isEqualTo("bye");
          Pair pair = proxy.awaitClosed(1).getFirst();
          assertThat(pair.cause())
              .isIn(CloseCause.UPSTREAM_EOF, CloseCause.UPSTREAM_RESET, CloseCause.UNDELIVERABLE);
          assertThat(streaming).succeedsWithin(Await.PATIENCE);
          assertThat(proxy.runtime().budget().used()).isZero();
        }
      }
    }
  }

  private static Socket connectedUpstream(EchoClient.Streams client, ScriptedUpstream upstream)
      throws Exception {
    client.out.write('c');
    client.out.flush();
    Socket server = upstream.next();
    server.setSoTimeout((int) Await.PATIENCE.toMillis());
    assertThat(server.getInputStream().read()).isEqualTo('c');
    return server;
  }

  /** Sends a pattern from the upstream until its connection breaks, or 1 GiB, whichever first. */
  private static CompletableFuture<Void> stream(Socket server) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              PayloadPattern pattern = new PayloadPattern(23);
              int piece = 64 * 1024;
              try {
                for (long at = 0; at < (1L << 30); at += piece) {
                  server.getOutputStream().write(pattern.bytes(at, piece));
                }
                done.complete(null);
              } catch (IOException e) {
                done.complete(null); // the proxy ended the pair: what this test waits for
              }
            });
    return done;
  }
}
