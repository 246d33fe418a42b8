package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.TestPki;
import org.junit.jupiter.api.Test;

/**
 * The suite runs twice, once per TLS engine (the build's {@code nio-jdk} execution sets {@code
 * sluice.tls.engine=jdk}); this checks that each run is on the engine it claims, so that OpenSSL
 * failing to load cannot let a JDK run pass for the OpenSSL one.
 */
class TlsEngineMatrixTest {

  @Test
  void theServersOfThisRunAreOnTheEngineTheRunIsFor() throws Exception {
    boolean jdkRun = "jdk".equals(System.getProperty(TlsEngineKind.DEFAULT_PROPERTY));
    if (!jdkRun) {
      assertThat(TlsEngineKind.openSslUnavailableReason())
          .as("the default run is the OpenSSL one: libssl.so.3 must load here")
          .isNull();
    }
    TlsServer server = TlsServer.create(TlsServerConfig.of(TestPki.get().serverKeyMaterial()));
    assertThat(server.engine()).isEqualTo(jdkRun ? TlsEngineKind.JDK : TlsEngineKind.OPENSSL);
  }

  @Test
  void clientsLeftOnAutoRunOnTheJdkInEveryRun() throws Exception {
    TlsClient client =
        TlsClient.create(
            TlsClientConfig.trusting(TestPki.get().caTrust()).withEngine(TlsEngineKind.AUTO));
    assertThat(client.engine()).isEqualTo(TlsEngineKind.JDK);
  }
}
