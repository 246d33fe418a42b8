package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.SocketOptions;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client side of the cipher policy against openssl s_server: by default a Sluice client offers
 * what a default server accepts and no more (no CBC), and a wider policy is offered when asked.
 */
class TlsCipherPolicyTest extends TlsTestBase {

  private TlsInteropTest.Peer cbcOnlyServer() throws Exception {
    return TlsInteropTest.opensslServer(
        pki, "-naccept", "1", "-www", "-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA");
  }

  private static int port(TlsInteropTest.Peer server) throws InterruptedException {
    return TlsInteropTest.acceptPort(server);
  }

  @Test
  void aDefaultClientOffersNoCbcSuite() throws Exception {
    try (TlsInteropTest.Peer server = cbcOnlyServer()) {
      Throwable failure =
          Await.failure(
              TlsClient.create(clientConfig())
                  .connect(
                      group(),
                      new InetSocketAddress("127.0.0.1", port(server)),
                      SocketOptions.defaults(),
                      new RecordingHandler()),
              "a handshake with a CBC-only server");
      assertThat(failure).isInstanceOf(TlsHandshakeException.class);
      server.awaitOutput("no shared cipher");
    }
  }

  @Test
  void theOldProfileOffersCbcWhenAskedTo() throws Exception {
    try (TlsInteropTest.Peer server = cbcOnlyServer()) {
      TlsConnection connection =
          await(
              TlsClient.create(clientConfig().withCiphers(TlsProfile.OLD.policy()))
                  .connect(
                      group(),
                      new InetSocketAddress("127.0.0.1", port(server)),
                      SocketOptions.defaults(),
                      new RecordingHandler()));
      assertThat(connection.session().getCipherSuite())
          .isEqualTo("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA");
      connection.close();
    }
  }

  @Test
  void aSuiteTheJvmCannotNegotiateIsRefusedWhenTheContextIsBuilt() {
    // BoringSSL still has 3DES, which neither OpenSSL 3 nor the JDK offers; it has no DHE.
    String missing =
        onBoringSsl() ? "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256" : "SSL_RSA_WITH_3DES_EDE_CBC_SHA";
    CipherPolicy tripleDes = CipherPolicy.DEFAULT.withTls12Suites(List.of(missing));
    Throwable e =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                TlsServer.create(
                    onBoringSsl() // auto would serve DHE on the JDK
                        ? serverConfig().withCiphers(tripleDes).withEngine(TlsEngineKind.OPENSSL)
                        : serverConfig().withCiphers(tripleDes)));
    assertThat(e)
        .isInstanceOf(java.security.GeneralSecurityException.class)
        .hasMessageContaining(missing + " is not supported by this");
  }

  @Test
  void fewerTls13SuitesAreRefusedOnBoringSslAndOfferedElsewhere() throws Exception {
    CipherPolicy one = CipherPolicy.DEFAULT.withTls13Suites(List.of("TLS_AES_256_GCM_SHA384"));
    TlsServerConfig config = serverConfig().withCiphers(one).withEngine(engine());
    if (onBoringSsl()) {
      Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> TlsServer.create(config));
      assertThat(e)
          .isInstanceOf(java.security.GeneralSecurityException.class)
          .hasMessageContaining("BoringSSL's TLS 1.3 cipher suites are fixed")
          .hasMessageContaining("TLS_AES_256_GCM_SHA384");
    } else {
      assertThat(TlsServer.create(config).engine()).isEqualTo(engine());
    }
  }
}
