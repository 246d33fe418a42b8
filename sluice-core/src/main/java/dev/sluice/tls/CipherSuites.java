package dev.sluice.tls;

import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * Cipher-suite names: the IANA names every engine is configured with (the JDK uses them as they
 * are) and the OpenSSL names operators often copy from a generator, for the suites a TLS 1.2 server
 * can reasonably be asked to offer; and what this JVM can actually negotiate.
 */
public final class CipherSuites {
  /** OpenSSL name to IANA name, TLS 1.2 and older (TLS 1.3 suites have one name in both). */
  private static final Map<String, String> IANA_BY_OPENSSL = openSslNames();

  private CipherSuites() {}

  /**
   * The IANA name of {@code name}, given as an IANA name (any case) or an OpenSSL one (e.g. {@code
   * ECDHE-RSA-AES128-GCM-SHA256}); null when it is neither.
   */
  public static String iana(String name) {
    String upper = name.trim().toUpperCase(Locale.ROOT);
    if (upper.startsWith("TLS_") || upper.startsWith("SSL_")) {
      return upper;
    }
    return IANA_BY_OPENSSL.get(upper);
  }

  /** The OpenSSL name of an IANA TLS 1.2 suite, or the name itself when OpenSSL has no other. */
  public static String openSsl(String iana) {
    for (Map.Entry<String, String> e : IANA_BY_OPENSSL.entrySet()) {
      if (e.getValue().equals(iana)) {
        return e.getKey();
      }
    }
    return iana;
  }

  /** Whether {@code iana} is a TLS 1.3 suite (one that fixes no key exchange or signature). */
  public static boolean isTls13(String iana) {
    return iana.startsWith("TLS_AES_")
        || iana.startsWith("TLS_CHACHA20_")
        || iana.startsWith("TLS_SM4_");
  }

  /**
   * The suites this JVM's TLS implementation can negotiate: what it supports less what its {@code
   * jdk.tls.disabledAlgorithms} security property disables.
   */
  public static Set<String> supportedByJdk() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, null, null);
      return Set.of(context.getSupportedSSLParameters().getCipherSuites());
    } catch (NoSuchAlgorithmException | java.security.KeyManagementException e) {
      throw new IllegalStateException("this JVM has no TLS", e);
    }
  }

  /** The named groups (key-exchange curves and finite fields) this JVM enables. */
  public static List<String> groupsOfJdk() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, null, null);
      String[] groups = context.getDefaultSSLParameters().getNamedGroups();
      return groups == null ? List.of() : List.of(groups);
    } catch (NoSuchAlgorithmException | java.security.KeyManagementException e) {
      throw new IllegalStateException("this JVM has no TLS", e);
    }
  }

  /** Those of {@code suites} this JVM cannot negotiate, in their order. */
  public static List<String> unsupportedByJdk(List<String> suites) {
    Set<String> supported = supportedByJdk();
    List<String> missing = new ArrayList<>();
    for (String suite : suites) {
      if (!supported.contains(suite)) {
        missing.add(suite);
      }
    }
    return missing;
  }

  private static Map<String, String> openSslNames() {
    Map<String, String> names = new LinkedHashMap<>();
    for (String kx : List.of("ECDHE-ECDSA", "ECDHE-RSA", "DHE-RSA")) {
      String ianaKx = "TLS_" + kx.replace('-', '_') + "_WITH_";
      names.put(kx + "-AES128-GCM-SHA256", ianaKx + "AES_128_GCM_SHA256");
      names.put(kx + "-AES256-GCM-SHA384", ianaKx + "AES_256_GCM_SHA384");
      names.put(kx + "-CHACHA20-POLY1305", ianaKx + "CHACHA20_POLY1305_SHA256");
    }
    names.put("ECDHE-ECDSA-AES128-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256");
    names.put("ECDHE-RSA-AES128-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256");
    names.put("ECDHE-ECDSA-AES256-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384");
    names.put("ECDHE-RSA-AES256-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384");
    names.put("ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA");
    names.put("ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA");
    names.put("ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA");
    names.put("ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA");
    names.put("DHE-RSA-AES128-SHA256", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256");
    names.put("DHE-RSA-AES256-SHA256", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256");
    names.put("DHE-RSA-AES128-SHA", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA");
    names.put("DHE-RSA-AES256-SHA", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA");
    names.put("AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256");
    names.put("AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384");
    names.put("AES128-SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA256");
    names.put("AES256-SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256");
    names.put("AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA");
    names.put("AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA");
    names.put("DES-CBC3-SHA", "SSL_RSA_WITH_3DES_EDE_CBC_SHA");
    return Map.copyOf(names);
  }
}
