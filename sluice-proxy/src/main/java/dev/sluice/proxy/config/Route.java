package dev.sluice.proxy.config;

import java.util.List;
import java.util.Locale;

/** Where a listener sends its clients. */
public sealed interface Route {

  /** Every client to one cluster. */
  record ToCluster(String cluster) implements Route {}

  /**
   * By the server name the client asks for (SNI), first match wins; {@code defaultCluster} (may be
   * null: then no route) for a name that matches no rule, or no name at all.
   */
  record BySni(List<SniRule> rules, String defaultCluster) implements Route {
    public BySni {
      rules = List.copyOf(rules);
    }

    /** The cluster for {@code serverName} (null when the client sent none), or null. */
    public String clusterFor(String serverName) {
      if (serverName != null) {
        String name = serverName.toLowerCase(Locale.ROOT);
        for (SniRule rule : rules) {
          if (rule.matches(name)) {
            return rule.cluster();
          }
        }
      }
      return defaultCluster;
    }
  }

  /**
   * A server-name rule: an exact name ({@code api.example.com}) or one label of wildcard ({@code
   * *.example.com} matches {@code a.example.com}, not {@code example.com} nor {@code
   * a.b.example.com}).
   */
  record SniRule(String match, String cluster) {
    public SniRule {
      match = match.toLowerCase(Locale.ROOT);
    }

    /** Whether the lower-case {@code name} matches. */
    public boolean matches(String name) {
      if (!match.startsWith("*.")) {
        return match.equals(name);
      }
      String suffix = match.substring(1); // ".example.com"
      if (!name.endsWith(suffix)) {
        return false;
      }
      String label = name.substring(0, name.length() - suffix.length());
      return !label.isEmpty() && label.indexOf('.') < 0;
    }
  }
}
