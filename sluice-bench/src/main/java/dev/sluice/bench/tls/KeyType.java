package dev.sluice.bench.tls;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The key of a benchmark certificate: what keytool makes, and the TLS 1.2 suite a client restricts
 * itself to with it (TLS 1.3 suites do not depend on the key).
 */
public enum KeyType {
  /** EC P-256 signing with SHA256withECDSA: the TLS workloads' certificate. */
  ECDSA_P256(
      "ecdsa",
      "EC P-256 (SHA256withECDSA)",
      List.of("-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA"),
      "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
  /** RSA-2048 signing with SHA256withRSA, the most common web certificate. */
  RSA_2048(
      "rsa",
      "RSA-2048 (SHA256withRSA)",
      List.of("-keyalg", "RSA", "-keysize", "2048", "-sigalg", "SHA256withRSA"),
      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");

  private final String id;
  private final String description;
  private final List<String> keytoolArgs;
  private final String tls12CipherSuite;

  KeyType(String id, String description, List<String> keytoolArgs, String tls12CipherSuite) {
    this.id = id;
    this.description = description;
    this.keytoolArgs = keytoolArgs;
    this.tls12CipherSuite = tls12CipherSuite;
  }

  /** As given on the command line: {@code ecdsa} or {@code rsa}. */
  public String id() {
    return id;
  }

  /** For the report. */
  public String description() {
    return description;
  }

  /** keytool's arguments choosing the key and the signature. */
  List<String> keytoolArgs() {
    return keytoolArgs;
  }

  /** The ECDHE suite with AES-128-GCM that authenticates with this key in TLS 1.2. */
  public String tls12CipherSuite() {
    return tls12CipherSuite;
  }

  /**
   * Parses {@code ecdsa} or {@code rsa}.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static KeyType parse(String option, String id) {
    for (KeyType type : values()) {
      if (type.id.equals(id)) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "--"
            + option
            + " expects "
            + Arrays.stream(values()).map(KeyType::id).collect(Collectors.joining(" or "))
            + ", got '"
            + id
            + "'");
  }
}
