package dev.sluice.proxy.config;

import dev.sluice.tls.CipherPolicy;
import dev.sluice.tls.CipherSuites;
import dev.sluice.tls.TlsProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A terminating listener's {@code ciphers} (TLS 1.2 suites, IANA or OpenSSL names), {@code
 * cipherSuites} (TLS 1.3, IANA names) and {@code groups}, over its profile's: each name checked
 * against what this JVM can negotiate.
 */
final class TlsPolicyReader {
  private TlsPolicyReader() {}

  static CipherPolicy ciphers(
      YamlNode tls, Map<String, YamlNode> f, TlsProfile profile, List<String> protocols) {
    CipherPolicy policy = profile.policy();
    Set<String> supported = CipherSuites.supportedByJdk();
    boolean tls12 = protocols.contains("TLSv1.2");
    if (f.containsKey("ciphers")) {
      YamlNode node = f.get("ciphers");
      if (!tls12) {
        node.problem("TLS 1.2 suites, but the listener's protocols are " + protocols);
      }
      policy = policy.withTls12Suites(suites(node, false, supported));
    }
    if (f.containsKey("cipherSuites")) {
      YamlNode node = f.get("cipherSuites");
      if (!protocols.contains("TLSv1.3")) {
        node.problem("TLS 1.3 suites, but the listener's protocols are " + protocols);
      }
      policy = policy.withTls13Suites(suites(node, true, supported));
    }
    if (f.containsKey("groups")) {
      YamlNode node = f.get("groups");
      List<String> jdk = CipherSuites.groupsOfJdk();
      List<String> groups = new ArrayList<>();
      for (YamlNode item : node.items()) {
        String name = item.text().orElse("");
        if (jdk.contains(name)) {
          groups.add(name);
        } else {
          item.problem("'" + name + "' is not a group this JVM enables: " + String.join(", ", jdk));
        }
      }
      if (groups.isEmpty() && node.isSequence() && node.items().isEmpty()) {
        node.problem("needs at least one group");
      }
      policy = policy.withGroups(groups);
    }
    if (tls12 && policy.tls12Suites().isEmpty() && !f.containsKey("ciphers")) {
      tls.problem(
          "TLSv1.2 is enabled but the "
              + profile.name().toLowerCase(java.util.Locale.ROOT)
              + " profile has no TLS 1.2 suite: set ciphers, or drop TLSv1.2 from protocols");
    }
    return policy;
  }

  private static List<String> suites(YamlNode node, boolean tls13, Set<String> supported) {
    List<String> suites = new ArrayList<>();
    for (YamlNode item : node.items()) {
      String name = item.text().orElse("");
      String iana = CipherSuites.iana(name);
      if (iana == null) {
        item.problem(
            "'"
                + name
                + "' is not a cipher suite name: give IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)"
                + " or OpenSSL ones (ECDHE-RSA-AES128-GCM-SHA256), one per entry");
      } else if (CipherSuites.isTls13(iana) != tls13) {
        item.problem(
            "'"
                + name
                + "' is a TLS "
                + (tls13 ? "1.2" : "1.3")
                + " suite: list it under "
                + (tls13 ? "ciphers" : "cipherSuites"));
      } else if (!supported.contains(iana)) {
        item.problem(
            "'"
                + name
                + "' is not a suite this JVM can negotiate (unknown, or disabled by its"
                + " jdk.tls.disabledAlgorithms): it has "
                + String.join(
                    ", ",
                    supported.stream()
                        .filter(s -> CipherSuites.isTls13(s) == tls13 && !s.contains("SCSV"))
                        .sorted()
                        .toList()));
      } else if (!suites.contains(iana)) {
        suites.add(iana);
      }
    }
    if (node.isSequence() && node.items().isEmpty()) {
      node.problem("needs at least one suite");
    }
    return suites;
  }
}
