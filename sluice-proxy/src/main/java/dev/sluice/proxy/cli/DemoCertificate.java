package dev.sluice.proxy.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * The demo's self-signed certificate, made in the proxy's own process: an EC P-256 key and an X.509
 * v3 certificate for {@code CN=localhost} with the subject alternative names {@code localhost} and
 * {@code 127.0.0.1}, signed with SHA256withECDSA and written as PEM (certificate, PKCS#8 key). The
 * JDK has no public API that builds a certificate, so its DER is written here; running the JDK's
 * keytool instead costs a second JVM start (about 1.3 s on a 2-core machine) before the demo
 * listens.
 *
 * @param cert the certificate's PEM file
 * @param key the private key's PEM file (PKCS#8, unencrypted)
 */
record DemoCertificate(Path cert, Path key) {
  private static final Duration VALIDITY = Duration.ofDays(30);
  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  // DER of the object identifiers used.
  private static final byte[] ECDSA_WITH_SHA256 = {
    0x06, 0x08, 0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x04, 0x03, 0x02
  };
  private static final byte[] COMMON_NAME = {0x06, 0x03, 0x55, 0x04, 0x03};
  private static final byte[] SUBJECT_ALT_NAME = {0x06, 0x03, 0x55, 0x1D, 0x11};

  /** Makes a key and certificate and writes them to {@code localhost.pem} and {@code .key}. */
  static DemoCertificate write(Path dir) throws IOException {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair pair = generator.generateKeyPair();
      Instant now = Instant.now();
      byte[] tbs = tbsCertificate(pair, now.minus(Duration.ofMinutes(1)), now.plus(VALIDITY));
      Signature signer = Signature.getInstance("SHA256withECDSA");
      signer.initSign(pair.getPrivate());
      signer.update(tbs);
      byte[] certificate = sequence(tbs, sequence(ECDSA_WITH_SHA256), bitString(signer.sign()));
      DemoCertificate files =
          new DemoCertificate(dir.resolve("localhost.pem"), dir.resolve("localhost.key"));
      Files.writeString(files.cert, pem("CERTIFICATE", certificate), StandardCharsets.US_ASCII);
      Files.writeString(
          files.key, pem("PRIVATE KEY", pair.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
      return files;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot make the demo certificate: " + e.getMessage(), e);
    }
  }

  private static byte[] tbsCertificate(KeyPair pair, Instant notBefore, Instant notAfter) {
    byte[] serial = new byte[16];
    new SecureRandom().nextBytes(serial);
    serial[0] &= 0x7F; // a positive INTEGER
    serial[0] |= 0x40; // with no leading zero byte to strip
    byte[] name =
        sequence(
            set(sequence(COMMON_NAME, tlv(0x0C, "localhost".getBytes(StandardCharsets.UTF_8)))));
    byte[] altNames =
        sequence(
            tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)), // dNSName
            tlv(0x87, new byte[] {127, 0, 0, 1})); // iPAddress
    byte[] extensions = tlv(0xA3, sequence(sequence(SUBJECT_ALT_NAME, tlv(0x04, altNames))));
    return sequence(
        tlv(0xA0, tlv(0x02, new byte[] {2})), // version v3
        tlv(0x02, serial),
        sequence(ECDSA_WITH_SHA256),
        name,
        sequence(utcTime(notBefore), utcTime(notAfter)),
        name,
        pair.getPublic().getEncoded(), // SubjectPublicKeyInfo, as X.509 encodes it
        extensions);
  }

  private static byte[] utcTime(Instant instant) {
    return tlv(0x17, UTC_TIME.format(instant).getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] bitString(byte[] bytes) {
    byte[] content = new byte[bytes.length + 1]; // leading 0: no unused bits
    System.arraycopy(bytes, 0, content, 1, bytes.length);
    return tlv(0x03, content);
  }

  private static byte[] sequence(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  private static byte[] set(byte[]... parts) {
    return tlv(0x31, concat(parts));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** One DER element: tag, definite length, content. */
  private static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 4);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else if (length < 0x100) {
      out.write(0x81);
      out.write(length);
    } else {
      out.write(0x82);
      out.write(length >> 8);
      out.write(length & 0xFF);
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
