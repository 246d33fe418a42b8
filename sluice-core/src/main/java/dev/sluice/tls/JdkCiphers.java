package dev.sluice.tls;

import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLParameters;

/** Puts a {@link CipherPolicy} into the JDK's parameters, refusing what the JDK cannot do. */
final class JdkCiphers {
  private JdkCiphers() {}

  static void apply(
      CipherPolicy policy, List<String> protocols, SSLParameters parameters, Set<String> supported)
      throws GeneralSecurityException {
    for (String suite : policy.allSuites()) {
      if (!supported.contains(suite)) {
        throw new GeneralSecurityException(
            "cipher suite "
                + suite
                + " is not supported by this JVM (or disabled by its security"
                + " properties)");
      }
    }
    if (protocols.contains("TLSv1.3") && policy.tls13Suites().isEmpty()) {
      throw new GeneralSecurityException("TLSv1.3 is enabled but no TLS 1.3 cipher suite is");
    }
    boolean olderThan13 = protocols.stream().anyMatch(p -> !p.equals("TLSv1.3"));
    if (olderThan13 && policy.tls12Suites().isEmpty()) {
      throw new GeneralSecurityException(
          "TLS " + String.join(", ", protocols) + " enabled but no TLS 1.2 cipher suite is");
    }
    List<String> groups = CipherSuites.groupsOfJdk();
    for (String group : policy.groups()) {
      if (!groups.contains(group)) {
        throw new GeneralSecurityException(
            "named group " + group + " is not enabled in this JVM (it has " + groups + ")");
      }
    }
    parameters.setCipherSuites(policy.allSuites().toArray(String[]::new));
    if (!policy.groups().isEmpty()) {
      parameters.setNamedGroups(policy.groups().toArray(String[]::new));
    }
    parameters.setUseCipherSuitesOrder(true);
  }
}
