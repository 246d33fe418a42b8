package dev.sluice.proxy.http;

import java.util.Locale;

/** A Host value or a target's authority: {@code host[:port]} (RFC 9110 §7.2, RFC 3986 §3.2). */
public final class Authority {
  private Authority() {}

  /**
   * Whether {@code text} is a host (a registered name, an IPv4 address or a bracketed IP literal)
   * with an optional decimal port. A comma, a space, user information or a path are refused: a Host
   * that two readers could take for different hosts. Empty is valid only where allowed (a Host for
   * a target without an authority).
   */
  static boolean valid(String text, boolean emptyAllowed) {
    if (text.isEmpty()) {
      return emptyAllowed;
    }
    int hostEnd;
    if (text.charAt(0) == '[') {
      int close = text.indexOf(']');
      if (close < 2) {
        return false;
      }
      for (int i = 1; i < close; i++) {
        char c = text.charAt(i);
        if (!(hex(c) || c == ':' || c == '.' || c == 'v' || c == 'V')) {
          return false;
        }
      }
      hostEnd = close + 1;
    } else {
      hostEnd = 0;
      while (hostEnd < text.length() && text.charAt(hostEnd) != ':') {
        char c = text.charAt(hostEnd);
        if (c == '%') {
          if (hostEnd + 2 >= text.length()
              || !hex(text.charAt(hostEnd + 1))
              || !hex(text.charAt(hostEnd + 2))) {
            return false;
          }
          hostEnd += 2;
        } else if (!regNameChar(c)) {
          return false;
        }
        hostEnd++;
      }
      if (hostEnd == 0) {
        return false;
      }
    }
    if (hostEnd == text.length()) {
      return true;
    }
    if (text.charAt(hostEnd) != ':' || text.length() - hostEnd - 1 > 5) {
      return false;
    }
    for (int i = hostEnd + 1; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * The host of a valid authority in lower case, without its port and a trailing dot: what routes
   * compare. An IP literal keeps its brackets.
   */
  public static String host(String authority) {
    String host = authority;
    if (host.startsWith("[")) {
      int close = host.indexOf(']');
      host = close < 0 ? host : host.substring(0, close + 1);
    } else {
      int colon = host.indexOf(':');
      if (colon >= 0) {
        host = host.substring(0, colon);
      }
      if (host.endsWith(".")) {
        host = host.substring(0, host.length() - 1);
      }
    }
    return host.toLowerCase(Locale.ROOT);
  }

  private static boolean hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /** unreserved and sub-delims, less the comma. */
  private static boolean regNameChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "-._~!$&'()*+;=".indexOf(c) >= 0;
  }
}
