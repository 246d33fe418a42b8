package dev.sluice.proxy.route;

/**
 * A client's TLS fingerprints, computed once from its ClientHello.
 *
 * @param ja3 the JA3 (32 hex digits)
 * @param ja4 the JA4 (e.g. {@code t13d1516h2_8daaf6152771_e5627efa2ab1})
 */
public record Fingerprint(String ja3, String ja4) {
  /** Both fingerprints of what the client offered. */
  public static Fingerprint of(ClientHello.Offer offer) {
    return new Fingerprint(Ja3.of(offer), Ja4.of(offer));
  }
}
