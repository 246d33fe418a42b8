package dev.sluice.proxy.http;

/**
 * The path a route's {@code pathPrefix} is compared with: the request's path as an upstream would
 * read it, so that a prefix cannot be dodged by spelling the same path another way. Without the
 * query; percent-escapes of unreserved characters decoded and the others' hex digits in upper case
 * (RFC 3986 §6.2.2.1-2: {@code /%7Ev1} is {@code /~v1}; {@code %2F} stays an escape, not a slash);
 * dot segments removed (§5.2.4: {@code /v1/../admin} is {@code /admin}); runs of slashes merged
 * ({@code //v1/} is {@code /v1/}, as nginx reads it). The request still goes upstream as sent.
 */
public final class RoutingPath {
  private RoutingPath() {}

  /** {@code target}'s path (origin form: the path and query), normalized. */
  public static String of(String target) {
    int query = target.indexOf('?');
    String path = query < 0 ? target : target.substring(0, query);
    if (path.indexOf('%') < 0 && path.indexOf("/.") < 0 && path.indexOf("//") < 0) {
      return path; // nearly every request: nothing to normalize
    }
    return withoutDotSegments(mergeSlashes(decodeUnreserved(path)));
  }

  private static String decodeUnreserved(String path) {
    if (path.indexOf('%') < 0) {
      return path;
    }
    StringBuilder b = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      int hi = i + 2 < path.length() ? Character.digit(path.charAt(i + 1), 16) : -1;
      int lo = hi >= 0 ? Character.digit(path.charAt(i + 2), 16) : -1;
      if (c != '%' || lo < 0) {
        b.append(c); // a lone % is left as it came: the parser judged the target already
        continue;
      }
      char decoded = (char) (hi * 16 + lo);
      if (unreserved(decoded)) {
        b.append(decoded);
      } else {
        b.append('%').append(Character.toUpperCase(path.charAt(i + 1)));
        b.append(Character.toUpperCase(path.charAt(i + 2)));
      }
      i += 2;
    }
    return b.toString();
  }

  private static boolean unreserved(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }

  private static String mergeSlashes(String path) {
    if (path.indexOf("//") < 0) {
      return path;
    }
    StringBuilder b = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c != '/' || b.isEmpty() || b.charAt(b.length() - 1) != '/') {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** RFC 3986 §5.2.4 for an absolute path (one that starts with a slash). */
  private static String withoutDotSegments(String path) {
    String[] segments = path.split("/", -1);
    java.util.ArrayDeque<String> out = new java.util.ArrayDeque<>(segments.length);
    boolean trailingSlash = false;
    for (int i = 1; i < segments.length; i++) { // [0] is what precedes the leading slash
      String s = segments[i];
      boolean last = i == segments.length - 1;
      switch (s) {
        case "." -> trailingSlash = last;
        case ".." -> {
          out.pollLast();
          trailingSlash = last;
        }
        default -> {
          out.addLast(s);
          trailingSlash = false;
        }
      }
    }
    StringBuilder b = new StringBuilder(path.length());
    for (String s : out) {
      b.append('/').append(s);
    }
    if (trailingSlash || b.isEmpty()) {
      b.append('/');
    }
    return b.toString();
  }
}
