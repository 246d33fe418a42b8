package dev.sluice.proxy.route;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

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
    List<Integer> ciphers = sorted(offer.cipherSuites(), false);
    List<Integer> extensions = sorted(offer.extensions(), true);
    return prefix(offer)
        + '_'
        + (ciphers.isEmpty() ? NO_VALUES : hash(hex(ciphers)))
        + '_'
        + (extensions.isEmpty() ? NO_VALUES : hash(extensionText(offer, extensions)));
  }

  /** The raw form FoxIO calls JA4_r: the lists that are hashed, in place of their hashes. */
  public static String raw(ClientHello.Offer offer) {
    List<Integer> extensions = sorted(offer.extensions(), true);
    return prefix(offer)
        + '_'
        + hex(sorted(offer.cipherSuites(), false))
        + '_'
        + extensionText(offer, extensions);
  }

  private static String prefix(ClientHello.Offer offer) {
    int ciphers = withoutGrease(offer.cipherSuites()).size();
    int extensions = withoutGrease(offer.extensions()).size();
    return "t"
        + version(offer)
        + (offer.extensions().contains(EXT_SERVER_NAME) ? 'd' : 'i')
        + String.format(Locale.ROOT, "%02d%02d", Math.min(ciphers, 99), Math.min(extensions, 99))
        + alpn(offer.protocols());
  }

  private static String version(ClientHello.Offer offer) {
    int version = offer.legacyVersion();
    List<Integer> supported = withoutGrease(offer.supportedVersions());
    if (!supported.isEmpty()) {
      version = supported.stream().mapToInt(Integer::intValue).max().orElseThrow();
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

  private static String extensionText(ClientHello.Offer offer, List<Integer> extensions) {
    List<Integer> algorithms = withoutGrease(offer.signatureAlgorithms());
    return algorithms.isEmpty() ? hex(extensions) : hex(extensions) + '_' + hex(algorithms);
  }

  /** The values without GREASE, sorted; the extensions also without server_name and ALPN. */
  private static List<Integer> sorted(List<Integer> values, boolean extensions) {
    List<Integer> kept = new ArrayList<>(withoutGrease(values));
    if (extensions) {
      kept.removeIf(type -> type == EXT_SERVER_NAME || type == EXT_ALPN);
    }
    kept.sort(null);
    return kept;
  }

  private static List<Integer> withoutGrease(List<Integer> values) {
    return values.stream().filter(v -> !Grease.is(v)).toList();
  }

  private static String hex(List<Integer> values) {
    StringBuilder b = new StringBuilder(values.size() * 5);
    for (int value : values) {
      if (!b.isEmpty()) {
        b.append(',');
      }
      b.append(HexFormat.of().toHexDigits((short) value));
    }
    return b.toString();
  }

  /** The first 12 hex digits of the SHA-256 of {@code text}. */
  static String hash(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
