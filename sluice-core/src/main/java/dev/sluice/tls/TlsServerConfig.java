package dev.sluice.tls;

import dev.sluice.net.Timeouts;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a TLS server presents and accepts.
 *
 * @param defaultKey the certificate for clients that send no server name, or one that matches no
 *     entry of {@code keysByServerName}; null to refuse them (unrecognized_name)
 * @param keysByServerName certificates chosen by the client's server name (SNI), keyed by
 *     lower-case host name; a key {@code *.example.com} matches one label in its place
 * @param clientAuth whether clients must present a certificate
 * @param clientTrust the authorities client certificates must chain to; required unless {@code
 *     clientAuth} is {@link ClientAuth#NONE}
 * @param protocols enabled protocol versions, e.g. {@code TLSv1.3}, {@code TLSv1.2}
 * @param applicationProtocols ALPN protocols in the server's order of preference; empty for no ALPN
 * @param handshakeTimeout how long a client may take to complete its handshake ({@link
 *     Timeouts#NONE} for no limit)
 * @param ciphers the suites and groups a handshake may use ({@link CipherPolicy#DEFAULT}: Mozilla's
 *     intermediate profile)
 * @param ocspStapling whether to staple OCSP responses for the certificates ({@link OcspStapling})
 * @param engine the TLS implementation ({@link TlsEngineKind#defaultKind()} unless set)
 * @param sessionTicketKeys a file of session-ticket keys in HAProxy's {@code tls-ticket-keys}
 *     format (OpenSSL engine only), or null for keys of the server's own
 */
public record TlsServerConfig(
    KeyMaterial defaultKey,
    Map<String, KeyMaterial> keysByServerName,
    ClientAuth clientAuth,
    TrustMaterial clientTrust,
    List<String> protocols,
    List<String> applicationProtocols,
    Duration handshakeTimeout,
    CipherPolicy ciphers,
    boolean ocspStapling,
    TlsEngineKind engine,
    java.nio.file.Path sessionTicketKeys) {

  /** TLS 1.3 and 1.2. */
  public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  /** Ten seconds. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  public TlsServerConfig {
    LinkedHashMap<String, KeyMaterial> names = new LinkedHashMap<>();
    keysByServerName.forEach((name, key) -> names.put(name.toLowerCase(Locale.ROOT), key));
    keysByServerName = java.util.Collections.unmodifiableMap(names);
    if (defaultKey == null && keysByServerName.isEmpty()) {
      throw new IllegalArgumentException("a TLS server needs a default key or keys by server name");
    }
    if (clientAuth != ClientAuth.NONE && clientTrust == null) {
      throw new IllegalArgumentException(
          "client authentication " + clientAuth + " needs trust material for client certificates");
    }
    if (protocols.isEmpty()) {
      throw new IllegalArgumentException("no TLS protocol enabled");
    }
    protocols = List.copyOf(protocols);
    applicationProtocols = List.copyOf(applicationProtocols);
    Timeouts.check("handshakeTimeout", handshakeTimeout);
    java.util.Objects.requireNonNull(ciphers, "ciphers");
    java.util.Objects.requireNonNull(engine, "engine");
  }

  /**
   * Checks a session-ticket key file as {@link #withSessionTicketKeys} will read it.
   *
   * @throws java.security.GeneralSecurityException naming the file and what is wrong with it
   */
  public static void checkSessionTicketKeys(java.nio.file.Path file)
      throws java.security.GeneralSecurityException {
    dev.sluice.tls.openssl.TicketKeys.check(file);
  }

  /** A server presenting {@code key} to every client: TLS 1.3 and 1.2, no ALPN, no client auth. */
  public static TlsServerConfig of(KeyMaterial key) {
    return new TlsServerConfig(
        key,
        Map.of(),
        ClientAuth.NONE,
        null,
        DEFAULT_PROTOCOLS,
        List.of(),
        DEFAULT_HANDSHAKE_TIMEOUT,
        CipherPolicy.DEFAULT,
        false,
        TlsEngineKind.defaultKind(),
        null);
  }

  /**
   * A server with no default key: clients must ask for a name added with {@link #withServerName}.
   */
  public static TlsServerConfig bySniOnly(String serverName, KeyMaterial key) {
    return new TlsServerConfig(
        null,
        Map.of(serverName, key),
        ClientAuth.NONE,
        null,
        DEFAULT_PROTOCOLS,
        List.of(),
        DEFAULT_HANDSHAKE_TIMEOUT,
        CipherPolicy.DEFAULT,
        false,
        TlsEngineKind.defaultKind(),
        null);
  }

  /**
   * With {@code key} presented to clients asking for {@code serverName} (may be {@code *.domain}).
   */
  public TlsServerConfig withServerName(String serverName, KeyMaterial key) {
    Map<String, KeyMaterial> names = new LinkedHashMap<>(keysByServerName);
    names.put(serverName, key);
    return new TlsServerConfig(
        defaultKey,
        names,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With client-certificate authentication. */
  public TlsServerConfig withClientAuth(ClientAuth auth, TrustMaterial trust) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        auth,
        trust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With only these protocol versions enabled. */
  public TlsServerConfig withProtocols(String... enabled) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        List.of(enabled),
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With these ALPN protocols, most preferred first. */
  public TlsServerConfig withApplicationProtocols(String... alpn) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        List.of(alpn),
        handshakeTimeout,
        ciphers,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With a handshake timeout. */
  public TlsServerConfig withHandshakeTimeout(Duration timeout) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        timeout,
        ciphers,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With these cipher suites and groups. */
  public TlsServerConfig withCiphers(CipherPolicy policy) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        policy,
        ocspStapling,
        engine,
        sessionTicketKeys);
  }

  /** With OCSP stapling on or off. */
  public TlsServerConfig withOcspStapling(boolean on) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        on,
        engine,
        sessionTicketKeys);
  }

  /** With this TLS engine. */
  public TlsServerConfig withEngine(TlsEngineKind kind) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        ocspStapling,
        kind,
        sessionTicketKeys);
  }

  /**
   * With session tickets encrypted by the keys of {@code file} (HAProxy's {@code tls-ticket-keys}
   * format), so that servers given the same file resume each other's sessions; null for the
   * server's own keys. The OpenSSL engine only: {@link TlsEngineKind#AUTO} then takes it.
   */
  public TlsServerConfig withSessionTicketKeys(java.nio.file.Path file) {
    return new TlsServerConfig(
        defaultKey,
        keysByServerName,
        clientAuth,
        clientTrust,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        ocspStapling,
        engine,
        file);
  }
}
