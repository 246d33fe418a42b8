package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./sluice check} where OpenSSL cannot load (here: its library named as one that does not
 * exist): {@code engine: openssl} is refused at its line with the reason, {@code auto} passes.
 */
class TlsEngineCheckTest {
  @TempDir Path dir;

  private static final String MISSING = "-Dsluice.tls.openssl.libssl=libsluice-missing.so.3";

  private Path config(String engine) throws Exception {
    TestPki pki = TestPki.get();
    Path file = dir.resolve(engine + ".yaml");
    Files.writeString(
        file,
        """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: c0
            tls: {certificates: [{cert: "%s", key: "%s"}], engine: %s}
        clusters:
          - {name: c0, upstreams: [{address: "127.0.0.1:9"}]}
        """
            .formatted(pki.serverCert, pki.serverKey, engine));
    return file;
  }

  @Test
  void aClustersEngineIsCheckedAtItsLine() throws Exception {
    TestPki pki = TestPki.get();
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(
        file,
        """
        listeners:
          - {name: front, address: 127.0.0.1:0, cluster: secure}
        clusters:
          - name: secure
            upstreams: [{address: "127.0.0.1:9"}]
            tls:
              ca: "%s"
              engine: boringssl
        """
            .formatted(pki.caCert));
    try (ChildProxy check = ChildProxy.start(List.of(), "check", "--config", file.toString())) {
      assertThat(check.awaitExit()).isEqualTo(2);
      assertThat(String.join("\n", check.output()))
          .contains(
              "cluster.yaml:8: clusters[0].tls.engine: 'boringssl' is not one of auto, openssl, jdk");
    }
    try (ChildProxy check =
        ChildProxy.start(
            List.of(MISSING),
            "check",
            "--config",
            Files.writeString(file, Files.readString(file).replace("boringssl", "openssl"))
                .toString())) {
      assertThat(check.awaitExit()).isEqualTo(2);
      assertThat(String.join("\n", check.output()))
          .contains("cluster.yaml:8: clusters[0].tls.engine: the OpenSSL engine cannot run here");
    }
  }

  @Test
  void opensslIsAConfigErrorWhereItCannotLoadAndAutoIsNot() throws Exception {
    try (ChildProxy check =
        ChildProxy.start(List.of(MISSING), "check", "--config", config("openssl").toString())) {
      assertThat(check.awaitExit()).isEqualTo(2);
      assertThat(String.join("\n", check.output()))
          .contains("listeners[0].tls.engine")
          .contains("the OpenSSL engine cannot run here: cannot load libsluice-missing.so.3")
          .contains("(use auto or jdk)");
    }
    try (ChildProxy check =
        ChildProxy.start(List.of(MISSING), "check", "--config", config("auto").toString())) {
      assertThat(check.awaitExit()).as(String.join("\n", check.output())).isZero();
    }
  }
}
