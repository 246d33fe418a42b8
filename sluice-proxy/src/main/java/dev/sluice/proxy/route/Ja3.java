package dev.sluice.proxy.route;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Salesforce's JA3 client fingerprint: {@code SSLVersion,Ciphers,Extensions,EllipticCurves,
 * EllipticCurvePointFormats}, each a '-' joined list of decimal values in the client's order with
 * GREASE left out, and the MD5 of that text in lower-case hex.
 */
public final class Ja3 {
  private Ja3() {}

  /** The fingerprint: the MD5 of {@link #text}, 32 lower-case hex digits. */
  public static String of(ClientHello.Offer offer) {
    byte[] digest = Digests.md5().digest(text(offer).getBytes(StandardCharsets.US_ASCII));
    return HexFormat.of().formatHex(digest);
  }

  /** The text that is hashed, e.g. {@code 771,4865-4866,0-11-10,29-23,0}. */
  public static String text(ClientHello.Offer offer) {
    StringBuilder b = new StringBuilder(256).append(offer.legacyVersion());
    for (List<Integer> field :
        List.of(
            offer.cipherSuites(),
            offer.extensions(),
            offer.supportedGroups(),
            offer.pointFormats())) {
      b.append(',');
      boolean first = true;
      for (int value : field) {
        if (!Grease.is(value)) {
          b.append(first ? "" : "-").append(value);
          first = false;
        }
      }
    }
    return b.toString();
  }
}
