package dev.sluice.proxy.forward;

import static dev.sluice.proxy.testing.HttpWire.bytes;
import static dev.sluice.proxy.testing.HttpWire.client;
import static dev.sluice.proxy.testing.HttpWire.readRequest;
import static dev.sluice.proxy.testing.HttpWire.readResponse;
import static dev.sluice.proxy.testing.HttpWire.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pooled connections to a TLS upstream (a JDK TLS server scripted by hand): the next request goes
 * out on the same TLS session, and one the upstream ends with close_notify while idle is not used.
 */
class PooledTlsUpstreamTest {
  private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

  @TempDir Path dir;
  private final TestPki pki = TestPki.get();

  @Test
  void aTlsConnectionIsReusedAndOneItsUpstreamEndedIsNot() throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(pki.serverP12)) {
      store.load(in, TestPki.PASSWORD);
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, TestPki.PASSWORD);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    LinkedBlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
    try (SSLServerSocket server =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  while (true) {
                    accepted.add(server.accept());
                  }
                } catch (java.io.IOException closed) {
                  // the test is over
                }
              });
      String address = "127.0.0.1:" + server.getLocalPort();
      try (ProxyFixture proxy =
          ProxyFixture.start(
              """
                  listeners:
                    - {name: front, address: "127.0.0.1:0", protocol: http, cluster: web}
                  clusters:
                    - name: web
                      upstreams: [{address: "%s"}]
                      tls: {ca: "%s", serverName: localhost}
                  """
                  .formatted(address, pki.caCert),
              dir,
              1)) {
        UpstreamTarget target = proxy.upstream("web", address);
        try (Socket client = client(proxy)) {
          InputStream in = client.getInputStream();
          send(client, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
          Socket a = accepted.poll(Await.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
          assertThat(a).isNotNull();
          assertThat(readRequest(a)).startsWith("GET /1");
          a.getOutputStream().write(bytes(OK));
          assertThat(readResponse(in)).endsWith("ok");
          Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
          send(client, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
          assertThat(readRequest(a)).startsWith("GET /2"); // the same TLS connection
          a.getOutputStream().write(bytes(OK));
          assertThat(readResponse(in)).endsWith("ok");
          assertThat(target.reuses()).isEqualTo(1);
          Await.until(() -> target.idle() == 1, () -> "idle " + target.idle());
          a.close(); // close_notify and FIN while idle
          Await.until(() -> target.idle() == 0, () -> "idle " + target.idle());
          send(client, "GET /3 HTTP/1.1\r\nHost: x\r\n\r\n");
          Socket b = accepted.poll(Await.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
          assertThat(b).isNotNull();
          assertThat(readRequest(b)).startsWith("GET /3");
          b.getOutputStream().write(bytes(OK));
          assertThat(readResponse(in)).endsWith("ok");
          assertThat(target.connects()).isEqualTo(2);
          b.close();
        }
        Await.until(
            () -> target.active() == 0 && target.idle() == 0,
            () -> "active " + target.active() + ", idle " + target.idle());
        Await.until(
            () -> proxy.runtime().budget().used() == 0,
            () -> "budget " + proxy.runtime().budget().used());
      }
    }
  }
}
