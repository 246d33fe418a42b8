package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS 1.2 client that renegotiates on a terminating listener ends its pair with the cause
 * tls_renegotiation_refused; the pair next to it goes on.
 */
class RenegotiationTest {
  @TempDir Path dir;

  private static SSLSocket tls12(ProxyFixture proxy, TestPki pki) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, pki.caTrust().trustManagers(), null);
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("localhost", address.getPort());
    socket.setEnabledProtocols(new String[] {"TLSv1.2"});
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static boolean echoes(SSLSocket socket, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return new String(socket.getInputStream().readNBytes(bytes.length), StandardCharsets.US_ASCII)
        .equals(text);
  }

  @Test
  void aClientThatRenegotiatesEndsItsPairAsRefused() throws Exception {
    TestPki pki = TestPki.get();
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                """
                    .formatted(pki.serverCert, pki.serverKey, echo.address()),
                dir);
        SSLSocket bystander = tls12(proxy, pki);
        SSLSocket client = tls12(proxy, pki)) {
      assertThat(echoes(bystander, "hello")).isTrue();
      assertThat(echoes(client, "hello")).isTrue();
      String refusal = "no error";
      try {
        client.startHandshake(); // a second handshake: a renegotiation
        client.getInputStream().read();
      } catch (IOException refused) {
        refusal = refused.toString();
      }
      // An alert, not a quiet close: a client must not take the renegotiation for done.
      // (BoringSSL's is the fatal no_renegotiation alert, OpenSSL's and the JDK's
      // handshake_failure.)
      assertThat(refusal)
          .contains(
              dev.sluice.testing.TlsTestBase.onBoringSsl()
                  ? "no_renegotiation"
                  : "handshake_failure");
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.TLS_RENEGOTIATION_REFUSED);
      assertThat(pair.causeDetail()).isEqualTo("client-initiated renegotiation refused");
      assertThat(echoes(bystander, "still here")).as("the other pair").isTrue();
      assertThat(proxy.closedPairs()).hasSize(1);
      // What /metrics reports as
      // sluice_connections_closed_total{cause="tls_renegotiation_refused"}.
      assertThat(proxy.listener("front").stats().closedCount(CloseCause.TLS_RENEGOTIATION_REFUSED))
          .isEqualTo(1);
    }
  }
}
