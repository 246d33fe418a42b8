package dev.sluice.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The certificate authorities a side trusts to sign its peer's certificate (PKIX validation, with
 * validity periods checked).
 *
 * @param authorities the trusted certificates
 * @param source where they came from, for messages
 */
public record TrustMaterial(List<X509Certificate> authorities, String source) {

  public TrustMaterial {
    if (authorities == null || authorities.isEmpty()) {
      throw new IllegalArgumentException("trust material needs at least one certificate");
    }
    authorities = List.copyOf(authorities);
  }

  @Override
  public String toString() {
    return "TrustMaterial[" + authorities.size() + " authorities from " + source + "]";
  }

  /**
   * Trusts every certificate of a PEM file (a CA bundle).
   *
   * @throws KeyMaterialException naming the file and the problem
   */
  public static TrustMaterial fromPem(Path file) throws KeyMaterialException {
    return new TrustMaterial(KeyMaterial.certificatesFromPem(file), file.toString());
  }

  /**
   * Trusts the certificate entries of a PKCS#12 trust store (keytool's trustedCertEntry).
   *
   * @throws KeyMaterialException naming the file and the problem (wrong password, no certificate)
   */
  public static TrustMaterial fromPkcs12(Path file, char[] password) throws KeyMaterialException {
    KeyStore store = KeyMaterial.loadPkcs12(file, password);
    List<X509Certificate> certificates = new ArrayList<>();
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (store.isCertificateEntry(alias)) {
          Certificate certificate = store.getCertificate(alias);
          certificates.add((X509Certificate) certificate);
        }
      }
    } catch (GeneralSecurityException e) {
      throw new KeyMaterialException(file, "cannot read the trust store: " + e.getMessage(), e);
    }
    if (certificates.isEmpty()) {
      throw new KeyMaterialException(file, "holds no trusted certificate entry", null);
    }
    return new TrustMaterial(certificates, file.toString());
  }

  /** Trusts the given certificates. */
  public static TrustMaterial of(List<X509Certificate> authorities) {
    return new TrustMaterial(authorities, "in-memory trust material");
  }

  /** The JDK trust managers that accept exactly these authorities. */
  public TrustManager[] trustManagers() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException("cannot create an empty key store", e);
    }
    for (int i = 0; i < authorities.size(); i++) {
      store.setCertificateEntry("ca-" + i, authorities.get(i));
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
    factory.init(store);
    return factory.getTrustManagers();
  }
}
