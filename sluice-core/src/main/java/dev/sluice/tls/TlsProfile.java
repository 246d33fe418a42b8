package dev.sluice.tls;

import java.util.List;

/**
 * Mozilla's server-side TLS profiles (the guidelines' version 5.7), as far as an engine can offer
 * them: protocol versions, TLS 1.2 suites, TLS 1.3 suites and key-exchange groups, each in order of
 * preference. Names are IANA's, so any engine can take them.
 */
public enum TlsProfile {
  /** TLS 1.3 only. */
  MODERN(List.of("TLSv1.3"), List.of(), Tls13.SUITES, Groups.ELLIPTIC),
  /**
   * TLS 1.3 and 1.2; TLS 1.2 with forward-secret ECDHE and an AEAD (AES-GCM, ChaCha20-Poly1305)
   * only: no CBC, no RSA key exchange. Mozilla's intermediate also lists three DHE suites; they are
   * left out (ECDHE serves every client this profile is for, and DHE costs a handshake more).
   */
  INTERMEDIATE(
      List.of("TLSv1.3", "TLSv1.2"),
      List.of(
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
      Tls13.SUITES,
      Groups.ELLIPTIC),
  /**
   * For very old clients: Mozilla's old suite list (CBC, DHE, RSA key exchange, 3DES). Its TLS 1.0
   * and 1.1 are never offered, and of its suites only those the engine supports are: see {@link
   * #unavailable}.
   */
  OLD(
      List.of("TLSv1.3", "TLSv1.2"),
      List.of(
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
          "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
          "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
          "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256",
          "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256",
          "TLS_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_RSA_WITH_AES_128_CBC_SHA256",
          "TLS_RSA_WITH_AES_256_CBC_SHA256",
          "TLS_RSA_WITH_AES_128_CBC_SHA",
          "TLS_RSA_WITH_AES_256_CBC_SHA",
          "SSL_RSA_WITH_3DES_EDE_CBC_SHA"),
      Tls13.SUITES,
      List.of("x25519", "secp256r1", "secp384r1", "ffdhe2048"));

  /** Mozilla's protocol versions for the old profile, which no engine here offers. */
  public static final List<String> OLD_PROTOCOLS_NOT_OFFERED = List.of("TLSv1.1", "TLSv1");

  private final List<String> protocols;
  private final List<String> tls12Suites;
  private final List<String> tls13Suites;
  private final List<String> groups;

  TlsProfile(
      List<String> protocols,
      List<String> tls12Suites,
      List<String> tls13Suites,
      List<String> groups) {
    this.protocols = protocols;
    this.tls12Suites = tls12Suites;
    this.tls13Suites = tls13Suites;
    this.groups = groups;
  }

  /** The protocol versions, newest first. */
  public List<String> protocols() {
    return protocols;
  }

  /** The profile's cipher policy as listed (before what an engine lacks is dropped). */
  public CipherPolicy listed() {
    return new CipherPolicy(tls12Suites, tls13Suites, groups);
  }

  /** The profile's cipher policy less what this JVM cannot negotiate. */
  public CipherPolicy policy() {
    List<String> missing = unavailable();
    return new CipherPolicy(
        tls12Suites.stream().filter(s -> !missing.contains(s)).toList(),
        tls13Suites.stream().filter(s -> !missing.contains(s)).toList(),
        groups);
  }

  /** The profile's suites this JVM cannot negotiate (disabled or unknown), in their order. */
  public List<String> unavailable() {
    List<String> all = new java.util.ArrayList<>(tls12Suites);
    all.addAll(tls13Suites);
    return CipherSuites.unsupportedByJdk(all);
  }

  /** The TLS 1.3 suites, all of them. */
  private static final class Tls13 {
    static final List<String> SUITES =
        List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  }

  /** Mozilla's elliptic groups. */
  private static final class Groups {
    static final List<String> ELLIPTIC = List.of("x25519", "secp256r1", "secp384r1");
  }
}
