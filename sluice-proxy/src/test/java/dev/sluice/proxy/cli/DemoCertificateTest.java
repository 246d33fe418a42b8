package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TrustMaterial;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCertificateTest {
  @TempDir Path dir;

  @Test
  void loadsAsTheProxyLoadsPemAndIsSelfSignedForLocalhost() throws Exception {
    DemoCertificate files = DemoCertificate.write(dir);
    KeyMaterial material = KeyMaterial.fromPem(files.cert(), files.key());
    X509Certificate cert = material.certificate();

    assertThat(material.warnings()).isEmpty();
    cert.checkValidity();
    cert.verify(cert.getPublicKey()); // self-signed: its own key verifies its signature
    assertThat(cert.getVersion()).isEqualTo(3);
    assertThat(cert.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
    assertThat(cert.getSubjectAlternativeNames())
        .containsExactlyInAnyOrder(List.of(2, "localhost"), List.of(7, "127.0.0.1"));
  }

  @Test
  void aClientVerifyingTheHostNameAcceptsItForLocalhostAnd127001() throws Exception {
    DemoCertificate files = DemoCertificate.write(dir);
    KeyMaterial material = KeyMaterial.fromPem(files.cert(), files.key());
    SSLContext server = serverContext(material);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, TrustMaterial.of(material.chain()).trustManagers(), null);

    for (String host : List.of("localhost", "127.0.0.1")) {
      try (SSLServerSocket listener =
          (SSLServerSocket)
              server
                  .getServerSocketFactory()
                  .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        CompletableFuture<Integer> served =
            CompletableFuture.supplyAsync(
                () -> {
                  try (SSLSocket accepted = (SSLSocket) listener.accept()) {
                    int b = accepted.getInputStream().read();
                    accepted.getOutputStream().write(b);
                    return b;
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        try (SSLSocket socket =
            (SSLSocket) client.getSocketFactory().createSocket(host, listener.getLocalPort())) {
          SSLParameters parameters = socket.getSSLParameters();
          parameters.setEndpointIdentificationAlgorithm("HTTPS"); // checks the name against SAN
          socket.setSSLParameters(parameters);
          socket.getOutputStream().write(42);
          assertThat(socket.getInputStream().read()).isEqualTo(42);
        }
        assertThat(served.get(10, TimeUnit.SECONDS)).isEqualTo(42);
      }
    }
  }

  private static SSLContext serverContext(KeyMaterial material) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = "test".toCharArray();
    store.setKeyEntry(
        "demo", material.key(), password, material.chain().toArray(new X509Certificate[0]));
    KeyManagerFactory keys = KeyManagerFactory.getInstance("PKIX");
    keys.init(store, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }
}
