package dev.sluice.tls;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * The OCSP messages (RFC 6960) stapling needs: a request for one certificate, the certificate a
 * request asks about, and what a response says about it. The response's signature is not checked
 * here: the client that receives it stapled checks it (and a server has no better trust anchor).
 */
final class OcspMessages {
  private static final String SHA1 = "1.3.14.3.2.26";
  private static final byte[] SHA1_OID = {0x2b, 0x0e, 0x03, 0x02, 0x1a};
  private static final String BASIC_RESPONSE = "1.3.6.1.5.5.7.48.1.1";
  private static final String AUTHORITY_INFO_ACCESS = "1.3.6.1.5.5.7.1.1";
  private static final String OCSP_ACCESS = "1.3.6.1.5.5.7.48.1";
  private static final int URI_NAME = 0x86;
  private static final DateTimeFormatter GENERALIZED =
      DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

  private OcspMessages() {}

  /** Which certificate a request or response is about: its issuer's key hash and its serial. */
  record CertKey(String issuerKeyHash, BigInteger serial) {
    static CertKey of(X509Certificate leaf, X509Certificate issuer) {
      return new CertKey(HexFormat.of().formatHex(keyHash(issuer)), leaf.getSerialNumber());
    }

    @Override
    public String toString() {
      return "serial " + serial.toString(16) + " (issuer key " + issuerKeyHash + ")";
    }
  }

  /** A certificate's status as a responder gave it. */
  enum CertStatus {
    GOOD,
    REVOKED,
    UNKNOWN
  }

  /**
   * A successful response about one certificate.
   *
   * @param nextUpdate when newer information will be there; null when it always may be
   */
  record Response(byte[] der, CertStatus status, Instant thisUpdate, Instant nextUpdate) {}

  /** The DER OCSPRequest asking about {@code leaf} (SHA-1 CertID, as every responder takes). */
  static byte[] request(X509Certificate leaf, X509Certificate issuer) {
    byte[] nameHash = sha1(issuer.getSubjectX500Principal().getEncoded());
    byte[] certId =
        Der.encode(
            Der.SEQUENCE,
            Der.encode(Der.SEQUENCE, Der.encode(Der.OID, SHA1_OID), Der.encode(Der.NULL)),
            Der.encode(Der.OCTET_STRING, nameHash),
            Der.encode(Der.OCTET_STRING, keyHash(issuer)),
            Der.encode(Der.INTEGER, leaf.getSerialNumber().toByteArray()));
    byte[] requestList = Der.encode(Der.SEQUENCE, Der.encode(Der.SEQUENCE, certId));
    return Der.encode(Der.SEQUENCE, Der.encode(Der.SEQUENCE, requestList));
  }

  /** The certificate the first entry of an OCSPRequest asks about. */
  static CertKey requestedCert(byte[] request) {
    Der.Reader tbs = new Der.Reader(request).next().expect(Der.SEQUENCE).contents();
    Der.Reader fields = tbs.next().expect(Der.SEQUENCE).contents();
    Der.Element list = fields.next();
    while (list.tag() != Der.SEQUENCE) { // [0] version, [1] requestorName
      list = fields.next();
    }
    Der.Reader first = list.contents().next().expect(Der.SEQUENCE).contents();
    return certKey(first.next().expect(Der.SEQUENCE));
  }

  /**
   * Reads a DER OCSPResponse about {@code cert}.
   *
   * @throws IllegalArgumentException if it is malformed, unsuccessful, or about something else
   */
  static Response response(byte[] der, CertKey cert) {
    Der.Reader outer = new Der.Reader(der).next().expect(Der.SEQUENCE).contents();
    Der.Element status = outer.next().expect(Der.ENUMERATED);
    int code = status.bytes().length == 1 ? status.bytes()[0] : -1;
    if (code != 0) {
      throw new IllegalArgumentException("the responder answered status " + statusName(code));
    }
    Der.Reader bytes =
        outer.next().expect(Der.CONTEXT_0).contents().next().expect(Der.SEQUENCE).contents();
    String type = bytes.next().oid();
    if (!type.equals(BASIC_RESPONSE)) {
      throw new IllegalArgumentException("not a basic OCSP response: " + type);
    }
    byte[] basic = bytes.next().expect(Der.OCTET_STRING).bytes();
    Der.Reader data =
        new Der.Reader(basic)
            .next()
            .expect(Der.SEQUENCE)
            .contents()
            .next()
            .expect(Der.SEQUENCE)
            .contents();
    Der.Element field = data.next();
    while (field.tag() != Der.GENERALIZED_TIME) { // version, responderID, then producedAt
      field = data.next();
    }
    Der.Reader responses = data.next().expect(Der.SEQUENCE).contents();
    while (responses.hasMore()) {
      Der.Reader single = responses.next().expect(Der.SEQUENCE).contents();
      if (!certKey(single.next().expect(Der.SEQUENCE)).equals(cert)) {
        continue;
      }
      CertStatus certStatus =
          switch (single.next().tag()) {
            case 0x80 -> CertStatus.GOOD;
            case 0xa1 -> CertStatus.REVOKED;
            default -> CertStatus.UNKNOWN;
          };
      Instant thisUpdate = time(single.next().expect(Der.GENERALIZED_TIME));
      Instant nextUpdate = null;
      if (single.hasMore()) {
        Der.Element next = single.next();
        if (next.tag() == Der.CONTEXT_0) {
          nextUpdate = time(next.contents().next().expect(Der.GENERALIZED_TIME));
        }
      }
      return new Response(der.clone(), certStatus, thisUpdate, nextUpdate);
    }
    throw new IllegalArgumentException("the response says nothing about " + cert);
  }

  /** The OCSP responder a certificate names (its authority information access), or null. */
  static String responderUrl(X509Certificate certificate) {
    byte[] extension = certificate.getExtensionValue(AUTHORITY_INFO_ACCESS);
    if (extension == null) {
      return null;
    }
    try {
      byte[] value = new Der.Reader(extension).next().expect(Der.OCTET_STRING).bytes();
      Der.Reader descriptions = new Der.Reader(value).next().expect(Der.SEQUENCE).contents();
      while (descriptions.hasMore()) {
        Der.Reader description = descriptions.next().expect(Der.SEQUENCE).contents();
        String method = description.next().oid();
        Der.Element location = description.next();
        if (method.equals(OCSP_ACCESS) && location.tag() == URI_NAME) {
          return new String(location.bytes(), StandardCharsets.US_ASCII);
        }
      }
    } catch (IllegalArgumentException e) {
      return null; // a malformed extension names no responder Sluice can use
    }
    return null;
  }

  private static CertKey certKey(Der.Element certId) {
    Der.Reader id = certId.contents();
    Der.Reader algorithm = id.next().expect(Der.SEQUENCE).contents();
    if (!algorithm.next().oid().equals(SHA1)) {
      // Keys are SHA-1 (what Sluice and the JDK ask with): another hash matches nothing.
      return new CertKey("unsupported hash", BigInteger.ZERO);
    }
    id.next().expect(Der.OCTET_STRING); // the issuer's name hash: its key hash is enough
    String keyHash = HexFormat.of().formatHex(id.next().expect(Der.OCTET_STRING).bytes());
    return new CertKey(keyHash, id.next().integer());
  }

  /** SHA-1 of the issuer's public key bits (the subjectPublicKey BIT STRING, less its pad byte). */
  private static byte[] keyHash(X509Certificate issuer) {
    Der.Reader info =
        new Der.Reader(issuer.getPublicKey().getEncoded()).next().expect(Der.SEQUENCE).contents();
    info.next(); // algorithm
    byte[] bits = info.next().expect(0x03).bytes();
    return sha1(java.util.Arrays.copyOfRange(bits, 1, bits.length));
  }

  private static Instant time(Der.Element element) {
    String text = new String(element.bytes(), StandardCharsets.US_ASCII);
    return LocalDateTime.parse(text.substring(0, 14), GENERALIZED).toInstant(ZoneOffset.UTC);
  }

  private static String statusName(int code) {
    return switch (code) {
      case 1 -> "malformedRequest";
      case 2 -> "internalError";
      case 3 -> "tryLater";
      case 5 -> "sigRequired";
      case 6 -> "unauthorized";
      default -> String.valueOf(code);
    };
  }

  private static byte[] sha1(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 in this JVM", e);
    }
  }
}
