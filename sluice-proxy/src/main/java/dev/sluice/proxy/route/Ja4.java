package dev.sluice.proxy.route;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * FoxIO's JA4 client fingerprint, for TLS over TCP: {@code t13d1516h2_8daaf6152771_e5627efa2ab1}.
 * The first part says the protocol, the version (the highest of supported_versions, else the
 * ClientHello's own), whether a server name was sent, how many cipher suites and extensions (at
 * most 99) and the first and last character of the first ALPN protocol; the second hashes the
 * cipher suites sorted; the third the extensions sorted, without server_name and ALPN, then the
 * signature algorithms in the client's order. GREASE values are left out everywhere.
 */
public final class Ja4 {
  private static final int EXT_SERVER_NAME = 0x0000;
  private static final int EXT_ALPN = 0x0010;
  private static final String NO_VALUES = "000000000000";

  private Ja4() {}

  /** The fingerprint. */
  public static String of(ClientHello.Offer offer) {
    int[] ciphers = sorted(offer.cipherSuites(), false);
    int[] extensions = sorted(offer.extensions(), true);
    StringBuilder b = prefix(offer).append('_');
    if (ciphers.length == 0) {
      b.append(NO_VALUES);
    } else {
      hash(hex(new StringBuilder(5 * ciphers.length), ciphers), b);
    }
    b.append('_');
    if (extensions.length == 0) {
      b.append(NO_VALUES);
    } else {
      hash(extensionText(offer, extensions), b);
    }
    return b.toString();
  }

  /** The raw form FoxIO calls JA4_r: the lists that are hashed, in place of their hashes. */
  public static String raw(ClientHello.Offer offer) {
    StringBuilder b = prefix(offer).append('_');
    hex(b, sorted(offer.cipherSuites(), false)).append('_');
    return b.append(extensionText(offer, sorted(offer.extensions(), true))).toString();
  }

  private static StringBuilder prefix(ClientHello.Offer offer) {
    int ciphers = Math.min(withoutGrease(offer.cipherSuites()).length, 99);
    int extensions = Math.min(withoutGrease(offer.extensions()).length, 99);
    StringBuilder b = new StringBuilder(40).append('t').append(version(offer));
    b.append(offer.extensions().contains(EXT_SERVER_NAME) ? 'd' : 'i');
    b.append(ciphers / 10).append(ciphers % 10).append(extensions / 10).append(extensions % 10);
    return b.append(alpn(offer.protocols()));
  }

  private static String version(ClientHello.Offer offer) {
    int version = offer.legacyVersion();
    int[] supported = withoutGrease(offer.supportedVersions());
    if (supported.length > 0) {
      version = Arrays.stream(supported).max().orElseThrow();
    }
    return switch (version) {
      case 0x0304 -> "13";
      case 0x0303 -> "12";
      case 0x0302 -> "11";
      case 0x0301 -> "10";
      case 0x0300 -> "s3";
      case 0x0002 -> "s2";
      case 0xfeff -> "d1";
      case 0xfefd -> "d2";
      case 0xfefc -> "d3";
      default -> "00";
    };
  }

  /**
   * The first and last character of the first protocol (one character counts as both); when either
   * is not an ASCII letter or digit, the first and last digit of the protocol in hex; {@code 00}
   * for none.
   */
  static String alpn(List<String> protocols) {
    if (protocols.isEmpty() || protocols.getFirst().isEmpty()) {
      return "00";
    }
    String first = protocols.getFirst(); // one char per byte (ISO 8859-1)
    char head = first.charAt(0);
    char tail = first.charAt(first.length() - 1);
    if (alphanumeric(head) && alphanumeric(tail)) {
      return "" + head + tail;
    }
    String hex = HexFormat.of().formatHex(first.getBytes(StandardCharsets.ISO_8859_1));
    return "" + hex.charAt(0) + hex.charAt(hex.length() - 1);
  }

  private static boolean alphanumeric(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  private static StringBuilder extensionText(ClientHello.Offer offer, int[] extensions) {
    int[] algorithms = withoutGrease(offer.signatureAlgorithms());
    StringBuilder b =
        hex(new StringBuilder(5 * (extensions.length + algorithms.length)), extensions);
    return algorithms.length == 0 ? b : hex(b.append('_'), algorithms);
  }

  /** The values without GREASE, sorted; the extensions also without server_name and ALPN. */
  private static int[] sorted(List<Integer> values, boolean extensions) {
    int[] kept = withoutGrease(values);
    if (extensions) {
      kept = Arrays.stream(kept).filter(t -> t != EXT_SERVER_NAME && t != EXT_ALPN).toArray();
    }
    Arrays.sort(kept);
    return kept;
  }

  private static int[] withoutGrease(List<Integer> values) {
    int[] kept = new int[values.size()];
    int n = 0;
    for (int value : values) {
      if (!Grease.is(value)) {
        kept[n++] = value;
      }
    }
    return n == kept.length ? kept : Arrays.copyOf(kept, n);
  }

  /** Appends the values as 4 hex digits each, comma separated. */
  private static StringBuilder hex(StringBuilder b, int[] values) {
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(HexFormat.of().toHexDigits((short) values[i]));
    }
    return b;
  }

  /** The first 12 hex digits of the SHA-256 of {@code text}. */
  static String hash(String text) {
    return hash(new StringBuilder(text), new StringBuilder(12)).toString();
  }

  /** Appends the first 12 hex digits of the SHA-256 of {@code text} (ASCII) to {@code to}. */
  private static StringBuilder hash(CharSequence text, StringBuilder to) {
    byte[] ascii = new byte[text.length()];
    for (int i = 0; i < ascii.length; i++) {
      ascii[i] = (byte) text.charAt(i);
    }
    return to.append(HexFormat.of().formatHex(Digests.sha256().digest(ascii), 0, 6));
  }
}
