package dev.sluice.proxy.proxyprotocol;

/**
 * The TLV types a version 2 header carries the client's fingerprints in (their text, ASCII), as
 * HAProxy-style private types (0xE0..0xEF are reserved for custom use).
 *
 * @param ja3 the type for JA3, or {@link #NOT_SENT}
 * @param ja4 the type for JA4, or {@link #NOT_SENT}
 */
public record FingerprintTlvs(int ja3, int ja4) {
  /** A fingerprint that is not sent. */
  public static final int NOT_SENT = -1;

  /** JA3 in 0xE0, JA4 in 0xE1. */
  public static final FingerprintTlvs DEFAULTS = new FingerprintTlvs(0xE0, 0xE1);

  public FingerprintTlvs {
    for (int type : new int[] {ja3, ja4}) {
      if (type != NOT_SENT && (type < 0 || type > 0xff)) {
        throw new IllegalArgumentException("a TLV type is one byte, not " + type);
      }
    }
  }
}
