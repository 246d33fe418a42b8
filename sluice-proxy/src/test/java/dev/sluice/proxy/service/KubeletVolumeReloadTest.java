package dev.sluice.proxy.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.testing.KubeletVolume;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.proxy.testing.ServedCertificate;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration and certificates mounted from a Kubernetes ConfigMap and Secret: the kubelet
 * updates them by swapping the {@code ..data} symlink to a new directory, never touching the path
 * the proxy was given, and the proxy reloads by itself all the same.
 */
class KubeletVolumeReloadTest {
  @TempDir Path dir;

  private static String config(String upstream, String... listeners) {
    StringBuilder yaml = new StringBuilder("listeners:\n");
    for (String name : listeners) {
      yaml.append("  - {name: %s, address: 127.0.0.1:0, cluster: c0}\n".formatted(name));
    }
    return yaml + "clusters:\n  - {name: c0, upstreams: [{address: \"" + upstream + "\"}]}\n";
  }

  private static Map<String, byte[]> configMap(String yaml) {
    return Map.of("sluice.yaml", yaml.getBytes(UTF_8));
  }

  private static ProxyService start(Path file) throws Exception {
    return ProxyService.start(ConfigReader.read(file), file, (l, pair) -> {});
  }

  /** A byte from a client through {@code listener} reaches the upstream. */
  private static void passes(ProxyService service, String listener, ScriptedUpstream upstream)
      throws Exception {
    InetSocketAddress at = (InetSocketAddress) service.runtime().listener(listener).boundAddress();
    try (Socket client = new Socket(at.getAddress(), at.getPort())) {
      client.getOutputStream().write('k');
      try (Socket server = upstream.next()) {
        assertThat(server.getInputStream().read()).isEqualTo('k');
      }
    }
  }

  @Test
  void anEditRejectedForACertificateNotThereYetIsAppliedWhenTheCertificateArrives()
      throws Exception {
    // A ConfigMap and a Secret are updated apart, the Secret up to a minute later: the new
    // configuration names a certificate that is not there yet, and is rejected until it is.
    TestPki pki = TestPki.get();
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      String u = upstream.address();
      KubeletVolume volume = KubeletVolume.mount(dir.resolve("config"), configMap(config(u, "a")));
      Path tls = Files.createDirectories(dir.resolve("tls"));
      Path file = volume.path("sluice.yaml");
      try (ProxyService service = start(file)) {
        String withTls =
            """
            listeners:
              - {name: a, address: 127.0.0.1:0, cluster: c0}
              - name: t
                address: 127.0.0.1:0
                cluster: c0
                tls: {certificates: [{cert: "%s", key: "%s"}]}
            clusters:
              - {name: c0, upstreams: [{address: "%s"}]}
            """
                .formatted(tls.resolve("tls.crt"), tls.resolve("tls.key"), u);
        volume.update(configMap(withTls));
        Await.until(() -> service.failedReloads() >= 1, () -> "the edit rejected: no certificate");
        assertThat(service.reloads()).isZero();

        Files.copy(pki.serverKey, tls.resolve("tls.key"));
        Files.copy(pki.serverCert, tls.resolve("tls.crt"));
        Await.until(() -> service.reloads() == 1, () -> "a reload once the certificate is there");
        InetSocketAddress t = (InetSocketAddress) service.runtime().listener("t").boundAddress();
        assertThat(ServedCertificate.subject(t)).contains("CN=localhost");
      }
    }
  }

  @Test
  void eachConfigMapSwapIsReloadedAndASwapOfTheSameContentIsNot() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      String u = upstream.address();
      KubeletVolume volume = KubeletVolume.mount(dir.resolve("config"), configMap(config(u, "a")));
      Path file = volume.path("sluice.yaml");
      try (ProxyService service = start(file)) {
        volume.update(configMap(config(u, "a", "b")));
        Await.until(() -> service.reloads() == 1, () -> "a reload after the first swap");
        passes(service, "b", upstream);

        volume.update(configMap(config(u, "a", "b", "c")));
        Await.until(() -> service.reloads() == 2, () -> "a reload after the second swap");
        passes(service, "c", upstream);

        long examined = service.watcherChecks();
        volume.update(configMap(config(u, "a", "b", "c")));
        Await.until(
            () -> service.watcherChecks() > examined, () -> "the identical swap to be examined");
        assertThat(service.reloads()).as("reloads after a swap that changed nothing").isEqualTo(2);
        assertThat(service.failedReloads()).isZero();
      }
    }
  }

  @Test
  void aCertificateSwappedInASecretVolumeIsServed() throws Exception {
    TestPki pki = TestPki.get();
    try (ScriptedUpstream upstream = ScriptedUpstream.start()) {
      KubeletVolume secret =
          KubeletVolume.mount(
              dir.resolve("tls"),
              Map.of(
                  "tls.crt", Files.readAllBytes(pki.serverCert),
                  "tls.key", Files.readAllBytes(pki.serverKey)));
      Path file =
          Files.writeString(
              dir.resolve("sluice.yaml"),
              """
              listeners:
                - name: front
                  address: 127.0.0.1:0
                  cluster: c0
                  tls: {certificates: [{cert: "%s", key: "%s"}]}
              clusters:
                - {name: c0, upstreams: [{address: "%s"}]}
              """
                  .formatted(secret.path("tls.crt"), secret.path("tls.key"), upstream.address()));
      try (ProxyService service = start(file)) {
        InetSocketAddress front =
            (InetSocketAddress) service.runtime().listener("front").boundAddress();
        assertThat(ServedCertificate.subject(front)).contains("CN=localhost");
        secret.update(
            Map.of(
                "tls.crt", Files.readAllBytes(pki.otherCert),
                "tls.key", Files.readAllBytes(pki.otherKey)));
        Await.until(() -> service.reloads() == 1, () -> "a reload after the Secret's swap");
        assertThat(ServedCertificate.subject(front)).contains("CN=other.test");
      }
    }
  }
}
