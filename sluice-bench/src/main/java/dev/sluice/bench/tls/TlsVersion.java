package dev.sluice.bench.tls;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The TLS version a benchmark runs, with the one cipher suite the peer enables, so every arm
 * negotiates the same suite whatever its own preferences (AES-128-GCM, the suite every TLS stack
 * has; ECDSA for TLS 1.2 because the benchmark's certificate is an EC key).
 */
public enum TlsVersion {
  TLS_1_3("1.3", "TLSv1.3", "TLS_AES_128_GCM_SHA256"),
  TLS_1_2("1.2", "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");

  /** The option that chooses the version. */
  public static final String OPTION = "tls";

  private final String id;
  private final String protocol;
  private final String cipherSuite;

  TlsVersion(String id, String protocol, String cipherSuite) {
    this.id = id;
    this.protocol = protocol;
    this.cipherSuite = cipherSuite;
  }

  /** As given on the command line: {@code 1.3} or {@code 1.2}. */
  public String id() {
    return id;
  }

  /** The JSSE protocol name, e.g. {@code TLSv1.3}. */
  public String protocol() {
    return protocol;
  }

  /** The cipher suite every connection of the benchmark negotiates. */
  public String cipherSuite() {
    return cipherSuite;
  }

  /**
   * What a TLS benchmark states in its report: the version and suite every connection negotiated
   * (each arm checks them), the certificate, how each arm runs TLS, and which side is measured.
   * Each arm also reports the library it loaded, as its {@code tlsLibrary} note.
   */
  public Map<String, String> conditions(String measuredSide) {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put("tlsProtocol", protocol);
    conditions.put("cipherSuite", cipherSuite + " (the only suite the peer enables)");
    conditions.put("certificate", BenchCertificate.DESCRIPTION);
    conditions.put(
        "tlsEngines",
        "Sluice: dev.sluice.tls on the JDK's SSLEngine; Netty: SslHandler, SslProvider.JDK;"
            + " Netty OpenSSL: SslHandler, SslProvider.OPENSSL (netty-tcnative's BoringSSL);"
            + " peer: JDK SSLSocket");
    conditions.put("measured", measuredSide);
    return conditions;
  }

  /**
   * Parses {@code 1.3} or {@code 1.2}.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static TlsVersion parse(String id) {
    for (TlsVersion version : values()) {
      if (version.id.equals(id)) {
        return version;
      }
    }
    throw new IllegalArgumentException(
        "--tls expects "
            + Arrays.stream(values()).map(TlsVersion::id).collect(Collectors.joining(" or "))
            + ", got '"
            + id
            + "'");
  }
}
