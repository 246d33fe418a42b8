package dev.sluice.tls;

import java.util.ArrayList;
import java.util.List;

/**
 * What a handshake may negotiate besides the protocol version, in IANA names so that any engine can
 * take it, each list in order of preference (a server picks by its own order).
 *
 * @param tls12Suites the TLS 1.2 cipher suites
 * @param tls13Suites the TLS 1.3 cipher suites
 * @param groups the key-exchange groups, e.g. {@code x25519}, {@code secp256r1}
 */
public record CipherPolicy(
    List<String> tls12Suites, List<String> tls13Suites, List<String> groups) {
  /** Mozilla's intermediate profile: the default on both sides. */
  public static final CipherPolicy DEFAULT = TlsProfile.INTERMEDIATE.listed();

  public CipherPolicy {
    tls12Suites = List.copyOf(tls12Suites);
    tls13Suites = List.copyOf(tls13Suites);
    groups = List.copyOf(groups);
  }

  /** Every suite, TLS 1.3 first (the order the JDK wants them in). */
  public List<String> allSuites() {
    List<String> all = new ArrayList<>(tls13Suites);
    all.addAll(tls12Suites);
    return all;
  }

  /** With other TLS 1.2 suites. */
  public CipherPolicy withTls12Suites(List<String> suites) {
    return new CipherPolicy(suites, tls13Suites, groups);
  }

  /** With other TLS 1.3 suites. */
  public CipherPolicy withTls13Suites(List<String> suites) {
    return new CipherPolicy(tls12Suites, suites, groups);
  }

  /** With other groups. */
  public CipherPolicy withGroups(List<String> named) {
    return new CipherPolicy(tls12Suites, tls13Suites, named);
  }
}
