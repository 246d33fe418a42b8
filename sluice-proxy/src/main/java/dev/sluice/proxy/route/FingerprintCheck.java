package dev.sluice.proxy.route;

import java.util.List;
import java.util.Set;

/**
 * A listener's fingerprint blocklists: a client whose JA3 or JA4 is listed is refused.
 *
 * @param ja3 JA3 fingerprints (32 lower-case hex digits)
 * @param ja4 JA4 fingerprints
 */
public record FingerprintCheck(Set<String> ja3, Set<String> ja4) {
  /** No blocklist: every client passes. */
  public static final FingerprintCheck NONE = new FingerprintCheck(Set.of(), Set.of());

  public FingerprintCheck {
    ja3 = Set.copyOf(ja3);
    ja4 = Set.copyOf(ja4);
  }

  /** The check for the listener's lists (as the configuration validated them). */
  public static FingerprintCheck of(List<String> ja3, List<String> ja4) {
    return ja3.isEmpty() && ja4.isEmpty()
        ? NONE
        : new FingerprintCheck(Set.copyOf(ja3), Set.copyOf(ja4));
  }

  /**
   * Whether a list is configured: then a ClientHello that does not complete in time, or cannot be
   * read, is refused too (fail closed).
   */
  public boolean active() {
    return !ja3.isEmpty() || !ja4.isEmpty();
  }

  /** Why {@code fingerprint} is refused, or null when it passes. */
  public String refusal(Fingerprint fingerprint) {
    if (ja3.contains(fingerprint.ja3())) {
      return "JA3 " + fingerprint.ja3() + " is blocked";
    }
    if (ja4.contains(fingerprint.ja4())) {
      return "JA4 " + fingerprint.ja4() + " is blocked";
    }
    return null;
  }
}
