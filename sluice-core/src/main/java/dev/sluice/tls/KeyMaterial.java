package dev.sluice.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;

/**
 * A private key and the certificate chain that goes with it (leaf first): what a server presents,
 * or a client for client-certificate authentication.
 *
 * <p>Loading checks that the key matches the leaf certificate (an error) and that every certificate
 * is within its validity period (a {@link #warnings() warning}, also logged: an expired certificate
 * is the peer's to reject).
 *
 * @param key the private key
 * @param chain the certificates, leaf first
 * @param source where the material came from, for messages
 * @param warnings problems that do not stop loading (expired or not yet valid certificates)
 */
public record KeyMaterial(
    PrivateKey key, List<X509Certificate> chain, String source, List<String> warnings) {
  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");
  private static final byte[] PROBE =
      "sluice key/certificate match probe".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  public KeyMaterial {
    if (key == null || chain == null || chain.isEmpty()) {
      throw new IllegalArgumentException("key material needs a key and at least one certificate");
    }
    chain = List.copyOf(chain);
    warnings = List.copyOf(warnings);
  }

  /** Subject, key algorithm and source; never the key. */
  @Override
  public String toString() {
    return "KeyMaterial["
        + certificate().getSubjectX500Principal().getName()
        + ", "
        + key.getAlgorithm()
        + " key, "
        + chain.size()
        + " certificate(s) from "
        + source
        + "]";
  }

  /** The leaf certificate. */
  public X509Certificate certificate() {
    return chain.getFirst();
  }

  /**
   * Loads a certificate chain (PEM, leaf first) and an unencrypted private key (PEM: PKCS#8, PKCS#1
   * RSA or SEC1 EC). The two may be the same file.
   *
   * @throws KeyMaterialException naming the file and the problem
   */
  public static KeyMaterial fromPem(Path certificateChain, Path privateKey)
      throws KeyMaterialException {
    return fromPem(certificateChain, privateKey, null);
  }

  /**
   * Like {@link #fromPem(Path, Path)}, for a private key that may be an encrypted PKCS#8 block.
   *
   * @param password the key's password, or null for an unencrypted key
   */
  public static KeyMaterial fromPem(Path certificateChain, Path privateKey, char[] password)
      throws KeyMaterialException {
    List<X509Certificate> chain = certificatesFromPem(certificateChain);
    PrivateKey key = PrivateKeys.fromPem(privateKey, Pem.read(privateKey), password);
    requireMatch(key, chain.getFirst(), privateKey, certificateChain);
    return new KeyMaterial(
        key, chain, certificateChain.toString(), validityWarnings(chain, certificateChain));
  }

  /**
   * Loads the first key entry of a PKCS#12 file (key and store share the password, as openssl and
   * keytool write them).
   *
   * @throws KeyMaterialException naming the file and the problem (wrong password, no key entry...)
   */
  public static KeyMaterial fromPkcs12(Path file, char[] password) throws KeyMaterialException {
    return fromPkcs12(file, password, null);
  }

  /**
   * Loads the key entry {@code alias} (or the first key entry, when null) of a PKCS#12 file.
   *
   * @throws KeyMaterialException naming the file and the problem
   */
  public static KeyMaterial fromPkcs12(Path file, char[] password, String alias)
      throws KeyMaterialException {
    KeyStore store = loadPkcs12(file, password);
    try {
      String chosen = alias;
      if (chosen == null) {
        for (String candidate : Collections.list(store.aliases())) {
          if (store.isKeyEntry(candidate)) {
            chosen = candidate;
            break;
          }
        }
        if (chosen == null) {
          throw new KeyMaterialException(file, "holds no private key entry", null);
        }
      } else if (!store.isKeyEntry(chosen)) {
        throw new KeyMaterialException(file, "has no private key entry named " + alias, null);
      }
      PrivateKey key;
      try {
        key = (PrivateKey) store.getKey(chosen, password);
      } catch (UnrecoverableKeyException e) {
        throw new KeyMaterialException(
            file, "wrong password for the private key entry " + chosen, e);
      }
      Certificate[] certificates = store.getCertificateChain(chosen);
      if (certificates == null || certificates.length == 0) {
        throw new KeyMaterialException(
            file, "the key entry " + chosen + " has no certificate", null);
      }
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate c : certificates) {
        chain.add((X509Certificate) c);
      }
      requireMatch(key, chain.getFirst(), file, file);
      return new KeyMaterial(key, chain, file.toString(), validityWarnings(chain, file));
    } catch (KeyMaterialException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      throw new KeyMaterialException(file, "cannot read the key entry: " + e.getMessage(), e);
    }
  }

  /**
   * Key material built in code; the key must match the leaf certificate.
   *
   * @throws KeyMaterialException when it does not
   */
  public static KeyMaterial of(PrivateKey key, List<X509Certificate> chain)
      throws KeyMaterialException {
    requireMatch(key, chain.getFirst(), null, null);
    return new KeyMaterial(key, chain, "in-memory key material", validityWarnings(chain, null));
  }

  // ---- helpers shared with TrustMaterial ----

  static List<X509Certificate> certificatesFromPem(Path file) throws KeyMaterialException {
    List<X509Certificate> certificates = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 support", e);
    }
    for (Pem.Block block : Pem.read(file)) {
      if (!block.type().equals("CERTIFICATE")) {
        continue;
      }
      try {
        certificates.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
      } catch (CertificateException e) {
        throw new KeyMaterialException(
            file,
            "certificate #" + (certificates.size() + 1) + " is malformed: " + e.getMessage(),
            e);
      }
    }
    if (certificates.isEmpty()) {
      throw new KeyMaterialException(file, "no PEM CERTIFICATE block found", null);
    }
    return certificates;
  }

  static KeyStore loadPkcs12(Path file, char[] password) throws KeyMaterialException {
    byte[] bytes = Pem.readBytes(file);
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(new ByteArrayInputStream(bytes), password);
      return store;
    } catch (IOException e) {
      if (e.getCause() instanceof UnrecoverableKeyException
          || String.valueOf(e.getMessage()).contains("password")) {
        throw new KeyMaterialException(file, "wrong password for the PKCS#12 file", e);
      }
      throw new KeyMaterialException(file, "not a readable PKCS#12 file: " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new KeyMaterialException(file, "cannot load the PKCS#12 file: " + e.getMessage(), e);
    }
  }

  /** Signs a probe with the key and verifies it with the certificate's public key. */
  private static void requireMatch(
      PrivateKey key, X509Certificate leaf, Path keyFile, Path certificateFile)
      throws KeyMaterialException {
    PublicKey publicKey = leaf.getPublicKey();
    String problem =
        "the private key does not match the certificate "
            + (certificateFile == null ? "" : "in " + certificateFile + " ")
            + "(subject "
            + leaf.getSubjectX500Principal().getName()
            + ")";
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      throw new KeyMaterialException(
          keyFile,
          problem
              + ": a "
              + key.getAlgorithm()
              + " key for a "
              + publicKey.getAlgorithm()
              + " certificate",
          null);
    }
    try {
      Signature signer = signatureFor(key.getAlgorithm());
      signer.initSign(key);
      signer.update(PROBE);
      byte[] signature = signer.sign();
      Signature verifier = signatureFor(key.getAlgorithm());
      verifier.initVerify(publicKey);
      verifier.update(PROBE);
      if (!verifier.verify(signature)) {
        throw new KeyMaterialException(keyFile, problem, null);
      }
    } catch (KeyMaterialException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      throw new KeyMaterialException(keyFile, problem + ": " + e.getMessage(), e);
    }
  }

  private static Signature signatureFor(String keyAlgorithm) throws GeneralSecurityException {
    return switch (keyAlgorithm) {
      case "RSA" -> Signature.getInstance("SHA256withRSA");
      case "EC" -> Signature.getInstance("SHA256withECDSA");
      case "RSASSA-PSS" -> {
        Signature pss = Signature.getInstance("RSASSA-PSS");
        pss.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
        yield pss;
      }
      default -> Signature.getInstance(keyAlgorithm); // EdDSA, Ed25519, Ed448
    };
  }

  private static List<String> validityWarnings(List<X509Certificate> chain, Path file) {
    List<String> warnings = new ArrayList<>();
    Date now = new Date();
    for (X509Certificate certificate : chain) {
      String subject = certificate.getSubjectX500Principal().getName();
      String where = file == null ? "" : " in " + file;
      try {
        certificate.checkValidity(now);
      } catch (CertificateExpiredException e) {
        warnings.add(
            "certificate "
                + subject
                + where
                + " expired on "
                + certificate.getNotAfter().toInstant());
      } catch (CertificateNotYetValidException e) {
        warnings.add(
            "certificate "
                + subject
                + where
                + " is not valid before "
                + certificate.getNotBefore().toInstant());
      }
    }
    warnings.forEach(w -> LOG.log(System.Logger.Level.WARNING, w));
    return warnings;
  }
}
