package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.TestPki;
import dev.sluice.tls.openssl.OpenSsl;
import org.junit.jupiter.api.Test;

/**
 * The suite runs twice, once per TLS engine (the build's {@code nio-jdk} execution sets {@code
 * sluice.tls.engine=jdk}), and its TLS tests a third time on BoringSSL (the {@code boringssl}
 * execution sets {@code sluice.tls.library=boringssl}); this checks that each run is on the engine
 * and library it claims, so that a library failing to load cannot let a JDK run pass for it.
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
  void theOpenSslEngineOfThisRunIsOnTheLibraryTheRunIsFor() {
    String asked = System.getProperty(OpenSsl.LIBRARY_PROPERTY);
    OpenSsl.Library expected =
        asked == null ? OpenSsl.Library.OPENSSL : OpenSsl.Library.parse(asked);
    assertThat(OpenSsl.library()).isEqualTo(expected);
    if (!"jdk".equals(System.getProperty(TlsEngineKind.DEFAULT_PROPERTY))) {
      assertThat(TlsEngineKind.openSslVersion())
          .as("the library this run is for loads")
          .contains(expected == OpenSsl.Library.BORINGSSL ? "BoringSSL" : "OpenSSL 3");
    }
  }

  @Test
  void aMistypedLibraryIsAnErrorNotAnotherLibrary() throws Exception {
    var run =
        dev.sluice.testing.ChildJvm.run(
            java.time.Duration.ofSeconds(60),
            java.util.List.of("-D" + OpenSsl.LIBRARY_PROPERTY + "=libressl"),
            MistypedLibrary.class);
    assertThat(String.join("\n", run.output()))
        .contains("unknown TLS library 'libressl'")
        .contains("expected openssl or boringssl");
  }

  /** Run in a child JVM: what the engine says under a library name it does not know. */
  static final class MistypedLibrary {
    public static void main(String[] args) {
      System.out.println(OpenSsl.unavailableReason());
    }
  }

  @Test
  void clientsLeftOnAutoRunOnTheJdkInEveryRun() throws Exception {
    TlsClient client =
        TlsClient.create(
            TlsClientConfig.trusting(TestPki.get().caTrust()).withEngine(TlsEngineKind.AUTO));
    assertThat(client.engine()).isEqualTo(TlsEngineKind.JDK);
  }
}
