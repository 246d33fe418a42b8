package dev.sluice.proxy.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Configured edits of one direction's heads: fields to remove, fields to set (replacing whatever
 * the sender put under that name). Names are compared ignoring case. The fields that frame the
 * message or the connection (Host, Content-Length, Transfer-Encoding, Connection, Upgrade and the
 * other hop-by-hop fields) cannot be edited: the proxy writes them itself.
 *
 * @param set names (as configured) and their values, in order
 * @param remove names in lower case
 */
public record HeaderEdits(Map<String, ValueTemplate> set, Set<String> remove) {
  /** No edits. */
  public static final HeaderEdits NONE = new HeaderEdits(Map.of(), Set.of());

  static final Set<String> PROXY_OWNED =
      Set.of(
          "host",
          "content-length",
          "transfer-encoding",
          "connection",
          "upgrade",
          "keep-alive",
          "proxy-connection",
          "te",
          "http2-settings");

  public HeaderEdits {
    set = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(set));
    remove = Set.copyOf(remove);
  }

  /**
   * Checks and parses configured edits.
   *
   * @throws IllegalArgumentException naming the first bad name or value
   */
  public static HeaderEdits of(Map<String, String> set, List<String> remove) {
    Map<String, ValueTemplate> templates = new LinkedHashMap<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Map.Entry<String, String> e : set.entrySet()) {
      String name = checkName(e.getKey());
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException("the header '" + name + "' is set twice");
      }
      templates.put(name, ValueTemplate.parse(e.getValue()));
    }
    java.util.Set<String> removed = new java.util.HashSet<>();
    for (String name : remove) {
      removed.add(checkName(name).toLowerCase(Locale.ROOT));
    }
    return new HeaderEdits(templates, removed);
  }

  private static String checkName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("an empty header name");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c > 0x7f || !Ascii.tchar(c)) {
        throw new IllegalArgumentException(
            "the header name '" + name + "' holds " + Ascii.show(c) + " (a token is needed)");
      }
    }
    if (PROXY_OWNED.contains(name.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "the header '" + name + "' frames the message or the connection: the proxy writes it");
    }
    return name;
  }

  /** Whether a field of this lower-case name is dropped because it is removed or set. */
  boolean drops(String lowerCaseName) {
    if (remove.contains(lowerCaseName)) {
      return true;
    }
    for (String name : set.keySet()) {
      if (name.equalsIgnoreCase(lowerCaseName)) {
        return true;
      }
    }
    return false;
  }
}
