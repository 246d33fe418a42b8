package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import org.junit.jupiter.api.Test;

class KeyMaterialTest {
  private final TestPki pki = TestPki.get();

  @Test
  void loadsPkcs8Pkcs1AndEncryptedPkcs8KeysWithTheirChain() throws Exception {
    KeyMaterial pkcs8 = KeyMaterial.fromPem(pki.serverCert, pki.serverKey);
    KeyMaterial pkcs1 = KeyMaterial.fromPem(pki.serverCert, pki.serverKeyPkcs1);
    KeyMaterial encrypted =
        KeyMaterial.fromPem(pki.serverCert, pki.serverKeyEncrypted, TestPki.PASSWORD);

    assertThat(pkcs8.key()).isInstanceOf(RSAPrivateKey.class);
    assertThat(pkcs1.key().getEncoded()).isEqualTo(pkcs8.key().getEncoded());
    assertThat(encrypted.key().getEncoded()).isEqualTo(pkcs8.key().getEncoded());
    assertThat(pkcs8.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
    assertThat(pkcs8.warnings()).isEmpty();
    assertThat(pkcs8.toString())
        .isEqualTo(
            "KeyMaterial[CN=localhost, RSA key, 1 certificate(s) from " + pki.serverCert + "]");
  }

  @Test
  void loadsSec1EcKeys() throws Exception {
    KeyMaterial ec = KeyMaterial.fromPem(pki.otherCert, pki.otherKey);

    assertThat(ec.key()).isInstanceOf(ECPrivateKey.class);
    assertThat(ec.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=other.test");
  }

  @Test
  void skipsOtherBlocksAndReadsKeyAndChainFromOneFile() throws Exception {
    Path combined =
        pki.write(
            "combined.pem",
            "some text before\n"
                + "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
                + Files.readString(pki.otherKey)
                + Files.readString(pki.otherCert)
                + Files.readString(pki.caCert));

    KeyMaterial material = KeyMaterial.fromPem(combined, combined);

    assertThat(material.chain()).hasSize(2);
    assertThat(material.chain().get(1).getSubjectX500Principal().getName())
        .isEqualTo("CN=Sluice Test CA");
  }

  @Test
  void loadsPkcs12KeyEntryAndTrustStores() throws Exception {
    KeyMaterial p12 = KeyMaterial.fromPkcs12(pki.serverP12, TestPki.PASSWORD);
    TrustMaterial trust = TrustMaterial.fromPkcs12(pki.caTrustP12, TestPki.PASSWORD);
    TrustMaterial pem = TrustMaterial.fromPem(pki.caCert);

    assertThat(p12.key().getEncoded())
        .isEqualTo(KeyMaterial.fromPem(pki.serverCert, pki.serverKey).key().getEncoded());
    assertThat(p12.chain()).hasSize(2);
    assertThat(trust.authorities()).isEqualTo(pem.authorities());
  }

  @Test
  void wrongPkcs12PasswordNamesTheFile() {
    assertThatThrownBy(() -> KeyMaterial.fromPkcs12(pki.serverP12, "nope".toCharArray()))
        .isInstanceOf(KeyMaterialException.class)
        .hasMessageContaining(pki.serverP12.toString())
        .hasMessageContaining("wrong password")
        .satisfies(e -> assertThat(((KeyMaterialException) e).file()).isEqualTo(pki.serverP12));
    assertThatThrownBy(() -> TrustMaterial.fromPkcs12(pki.caTrustP12, "nope".toCharArray()))
        .hasMessageContaining(pki.caTrustP12.toString())
        .hasMessageContaining("wrong password");
  }

  @Test
  void wrongOrMissingPasswordForAnEncryptedKey() {
    assertThatThrownBy(
            () -> KeyMaterial.fromPem(pki.serverCert, pki.serverKeyEncrypted, "bad".toCharArray()))
        .isInstanceOf(KeyMaterialException.class)
        .hasMessageContaining(pki.serverKeyEncrypted.toString())
        .hasMessageContaining("wrong password");
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, pki.serverKeyEncrypted))
        .hasMessageContaining(pki.serverKeyEncrypted.toString())
        .hasMessageContaining("encrypted");
  }

  @Test
  void keyThatDoesNotMatchTheCertificate() {
    // an EC key for an RSA certificate, and an RSA key for another RSA certificate
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, pki.otherKey))
        .isInstanceOf(KeyMaterialException.class)
        .hasMessageContaining(pki.otherKey.toString())
        .hasMessageContaining("does not match the certificate in " + pki.serverCert);
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.otherCert, pki.clientKey))
        .hasMessageContaining("does not match the certificate")
        .hasMessageContaining("CN=other.test");
  }

  @Test
  void expiredAndNotYetValidCertificatesLoadWithAWarning() throws Exception {
    KeyMaterial selfSigned = KeyMaterial.fromPkcs12(pki.expiredClientP12, TestPki.PASSWORD);
    KeyMaterial expired =
        KeyMaterial.of(selfSigned.key(), KeyMaterial.certificatesFromPem(pki.expiredClientCert));
    KeyMaterial future = KeyMaterial.fromPkcs12(pki.notYetValidP12, TestPki.PASSWORD);

    assertThat(selfSigned.warnings()).isEmpty();
    assertThat(expired.warnings())
        .singleElement()
        .asString()
        .contains("CN=expired-client", "expired on");
    assertThat(future.warnings())
        .singleElement()
        .asString()
        .contains("CN=not-yet-valid", "not valid before");
  }

  @Test
  void unreadableOrMalformedFiles() throws Exception {
    Path missing = pki.dir.resolve("missing.pem");
    Path notPem = pki.write("garbage.pem", "this is not a certificate\n");
    Path badBase64 =
        pki.write(
            "bad-base64.pem", "-----BEGIN CERTIFICATE-----\n%%%%\n-----END CERTIFICATE-----\n");
    Path unterminated = pki.write("unterminated.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n");
    Path legacy =
        pki.write(
            "legacy.key",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                + "DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n");

    assertThatThrownBy(() -> KeyMaterial.fromPem(missing, pki.serverKey))
        .isInstanceOf(KeyMaterialException.class)
        .hasMessage(missing + ": cannot read file: it does not exist");
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.dir, pki.serverKey))
        .hasMessageStartingWith(pki.dir + ": cannot read file");
    assertThatThrownBy(() -> KeyMaterial.fromPem(notPem, pki.serverKey))
        .hasMessage(notPem + ": no PEM CERTIFICATE block found");
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, notPem))
        .hasMessageStartingWith(notPem + ": no private key found");
    assertThatThrownBy(() -> KeyMaterial.fromPem(badBase64, pki.serverKey))
        .hasMessageContaining("not valid base64");
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, unterminated))
        .hasMessageContaining("no -----END PRIVATE KEY----- line");
    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, legacy))
        .hasMessageContaining("legacy OpenSSL-encrypted")
        .hasMessageContaining("openssl pkcs8 -topk8");
    assertThatThrownBy(() -> KeyMaterial.fromPkcs12(notPem, TestPki.PASSWORD))
        .hasMessageStartingWith(notPem + ": not a readable PKCS#12 file");
    assertThatThrownBy(() -> TrustMaterial.fromPem(missing))
        .hasMessage(missing + ": cannot read file: it does not exist");
  }

  @Test
  void truncatedKeyIsAClearError() throws Exception {
    String pem = Files.readString(pki.serverKeyPkcs1);
    String[] lines = pem.split("\n");
    StringBuilder cut = new StringBuilder(lines[0]).append('\n');
    for (int i = 1; i < 6; i++) {
      cut.append(lines[i]).append('\n');
    }
    cut.append(lines[lines.length - 1]).append('\n');
    Path truncated = pki.write("truncated.key", cut.toString());

    assertThatThrownBy(() -> KeyMaterial.fromPem(pki.serverCert, truncated))
        .isInstanceOf(KeyMaterialException.class)
        .hasMessageStartingWith(truncated + ": cannot decode the RSA PRIVATE KEY");
  }
}
