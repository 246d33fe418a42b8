package dev.sluice.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Chooses the certificate to present: on a server by the client's requested server name (SNI),
 * falling back to a default; on a client, its one client certificate.
 */
final class KeyManagers extends X509ExtendedKeyManager {
  private static final String DEFAULT_ALIAS = "default";
  private static final String NAME_PREFIX = "sni:";

  private final KeyMaterial defaultKey;
  private final Map<String, KeyMaterial> byName;

  private KeyManagers(KeyMaterial defaultKey, Map<String, KeyMaterial> byName) {
    this.defaultKey = defaultKey;
    this.byName = byName;
  }

  static KeyManagers forServer(TlsServerConfig config) {
    return new KeyManagers(config.defaultKey(), config.keysByServerName());
  }

  static KeyManagers forClient(KeyMaterial clientKey) {
    return new KeyManagers(clientKey, Map.of());
  }

  /** The configured name {@code host} falls under (exact, then one-label wildcard), or null. */
  static String matchName(Map<String, ?> names, String host) {
    String lower = host.toLowerCase(Locale.ROOT);
    if (names.containsKey(lower)) {
      return lower;
    }
    int dot = lower.indexOf('.');
    if (dot > 0) {
      String wildcard = "*" + lower.substring(dot);
      if (names.containsKey(wildcard)) {
        return wildcard;
      }
    }
    return null;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    for (String host : requestedHostNames(engine == null ? null : engine.getHandshakeSession())) {
      String name = matchName(byName, host);
      if (name != null && fits(keyType, byName.get(name))) {
        return NAME_PREFIX + name;
      }
    }
    return defaultKey != null && fits(keyType, defaultKey) ? DEFAULT_ALIAS : null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return defaultKey != null && fits(keyType, defaultKey) ? DEFAULT_ALIAS : null;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return chooseClientAlias(keyTypes, issuers, null);
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    if (defaultKey == null) {
      return null;
    }
    for (String keyType : keyTypes) {
      if (fits(keyType, defaultKey)) {
        return DEFAULT_ALIAS;
      }
    }
    return null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    List<String> aliases = new ArrayList<>();
    if (defaultKey != null && fits(keyType, defaultKey)) {
      aliases.add(DEFAULT_ALIAS);
    }
    byName.forEach(
        (name, key) -> {
          if (fits(keyType, key)) {
            aliases.add(NAME_PREFIX + name);
          }
        });
    return aliases.isEmpty() ? null : aliases.toArray(String[]::new);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return defaultKey != null && fits(keyType, defaultKey) ? new String[] {DEFAULT_ALIAS} : null;
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    KeyMaterial key = lookup(alias);
    return key == null ? null : key.chain().toArray(X509Certificate[]::new);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    KeyMaterial key = lookup(alias);
    return key == null ? null : key.key();
  }

  private KeyMaterial lookup(String alias) {
    if (DEFAULT_ALIAS.equals(alias)) {
      return defaultKey;
    }
    if (alias != null && alias.startsWith(NAME_PREFIX)) {
      return byName.get(alias.substring(NAME_PREFIX.length()));
    }
    return null;
  }

  /** Whether a key serves the JSSE key type ("RSA", "EC", "RSASSA-PSS", "EdDSA", "EC_RSA"...). */
  private static boolean fits(String keyType, KeyMaterial key) {
    String wanted = keyType;
    int underscore = wanted.indexOf('_');
    if (underscore > 0) {
      wanted = wanted.substring(0, underscore);
    }
    String algorithm = key.key().getAlgorithm();
    if (wanted.equalsIgnoreCase(algorithm)) {
      return true;
    }
    return wanted.equals("EdDSA") && (algorithm.equals("Ed25519") || algorithm.equals("Ed448"));
  }

  private static List<String> requestedHostNames(SSLSession session) {
    if (!(session instanceof ExtendedSSLSession extended)) {
      return List.of();
    }
    List<String> hosts = new ArrayList<>();
    for (SNIServerName name : extended.getRequestedServerNames()) {
      if (name instanceof SNIHostName host) {
        hosts.add(host.getAsciiName());
      }
    }
    return hosts;
  }
}
