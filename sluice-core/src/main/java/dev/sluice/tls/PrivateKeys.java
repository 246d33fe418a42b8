package dev.sluice.tls;

import java.math.BigInteger;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Decodes a private key from PEM: PKCS#8 ({@code PRIVATE KEY}), encrypted PKCS#8 ({@code ENCRYPTED
 * PRIVATE KEY}), PKCS#1 RSA ({@code RSA PRIVATE KEY}) or SEC1 EC ({@code EC PRIVATE KEY}).
 */
final class PrivateKeys {
  private static final Map<String, String> ALGORITHM_BY_OID =
      Map.of(
          "1.2.840.113549.1.1.1", "RSA",
          "1.2.840.113549.1.1.10", "RSASSA-PSS",
          "1.2.840.10045.2.1", "EC",
          "1.3.101.112", "Ed25519",
          "1.3.101.113", "Ed448");

  private PrivateKeys() {}

  /** The one private key among {@code blocks}. */
  static PrivateKey fromPem(Path file, List<Pem.Block> blocks, char[] password)
      throws KeyMaterialException {
    List<Pem.Block> keys = blocks.stream().filter(b -> b.type().endsWith("PRIVATE KEY")).toList();
    if (keys.isEmpty()) {
      throw new KeyMaterialException(
          file,
          "no private key found (expected a PEM block PRIVATE KEY, RSA PRIVATE KEY, EC PRIVATE KEY"
              + " or ENCRYPTED PRIVATE KEY)",
          null);
    }
    if (keys.size() > 1) {
      throw new KeyMaterialException(
          file, "holds " + keys.size() + " private keys; expected exactly one", null);
    }
    Pem.Block block = keys.getFirst();
    if (block.headers().stream().anyMatch(h -> h.startsWith("Proc-Type") || h.startsWith("DEK"))) {
      throw new KeyMaterialException(
          file,
          "legacy OpenSSL-encrypted "
              + block.type()
              + " is not supported; convert it to PKCS#8 (openssl pkcs8 -topk8)",
          null);
    }
    try {
      return switch (block.type()) {
        case "PRIVATE KEY" -> pkcs8(block.der());
        case "ENCRYPTED PRIVATE KEY" -> encryptedPkcs8(file, block.der(), password);
        case "RSA PRIVATE KEY" -> pkcs1(block.der());
        case "EC PRIVATE KEY" -> sec1(block.der());
        default ->
            throw new KeyMaterialException(
                file, "unsupported private key type " + block.type(), null);
      };
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      if (e instanceof KeyMaterialException k) {
        throw k;
      }
      throw new KeyMaterialException(
          file, "cannot decode the " + block.type() + ": " + e.getMessage(), e);
    }
  }

  /** A PKCS#8 key; the algorithm comes from its own algorithm identifier. */
  static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    Der.Reader info = new Der.Reader(der).next().expect(Der.SEQUENCE).contents();
    info.next().expect(Der.INTEGER);
    String oid = info.next().expect(Der.SEQUENCE).contents().next().oid();
    String algorithm = ALGORITHM_BY_OID.get(oid);
    if (algorithm == null) {
      throw new GeneralSecurityException("unsupported key algorithm (OID " + oid + ")");
    }
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  private static PrivateKey encryptedPkcs8(Path file, byte[] der, char[] password)
      throws GeneralSecurityException {
    if (password == null) {
      throw new KeyMaterialException(file, "the private key is encrypted: give its password", null);
    }
    EncryptedPrivateKeyInfo encrypted;
    Cipher cipher;
    try {
      encrypted = new EncryptedPrivateKeyInfo(der);
      SecretKeyFactory factory = SecretKeyFactory.getInstance(encrypted.getAlgName());
      cipher = Cipher.getInstance(encrypted.getAlgName());
      cipher.init(
          Cipher.DECRYPT_MODE,
          factory.generateSecret(new PBEKeySpec(password)),
          encrypted.getAlgParameters());
    } catch (java.io.IOException e) {
      throw new KeyMaterialException(file, "malformed ENCRYPTED PRIVATE KEY", e);
    }
    PKCS8EncodedKeySpec spec;
    try {
      spec = encrypted.getKeySpec(cipher);
      return pkcs8(spec.getEncoded());
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new KeyMaterialException(file, "wrong password for the encrypted private key", e);
    }
  }

  /** RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dP, dQ, qInv, ... } (RFC 8017). */
  private static PrivateKey pkcs1(byte[] der) throws GeneralSecurityException {
    Der.Reader key = new Der.Reader(der).next().expect(Der.SEQUENCE).contents();
    key.next().expect(Der.INTEGER);
    BigInteger[] v = new BigInteger[8];
    for (int i = 0; i < v.length; i++) {
      v[i] = key.next().integer();
    }
    return KeyFactory.getInstance("RSA")
        .generatePrivate(new RSAPrivateCrtKeySpec(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
  }

  /**
   * ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] parameters (the named
   * curve) OPTIONAL, [1] publicKey OPTIONAL } (RFC 5915).
   */
  private static PrivateKey sec1(byte[] der) throws GeneralSecurityException {
    Der.Reader key = new Der.Reader(der).next().expect(Der.SEQUENCE).contents();
    key.next().expect(Der.INTEGER);
    BigInteger secret = new BigInteger(1, key.next().expect(Der.OCTET_STRING).bytes());
    String curve = null;
    while (key.hasMore()) {
      Der.Element element = key.next();
      if (element.tag() == Der.CONTEXT_0) {
        curve = element.contents().next().oid();
      }
    }
    if (curve == null) {
      throw new GeneralSecurityException("the EC key does not name its curve");
    }
    AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
    parameters.init(new ECGenParameterSpec(curve));
    ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
    return KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(secret, spec));
  }
}
