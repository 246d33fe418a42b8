package dev.sluice.tls;

import dev.sluice.net.Timeouts;
import java.time.Duration;
import java.util.List;

/**
 * What a TLS client trusts and presents.
 *
 * @param trust the authorities the server's certificate must chain to; null for the JDK's default
 *     trust store
 * @param clientKey the certificate to present when the server asks for one; null for none
 * @param serverName the name sent as SNI and checked against the server's certificate; null to use
 *     the host of the address connected to (an IP address is verified but not sent as SNI)
 * @param verifyHostname whether the server's certificate must match the server name
 * @param protocols enabled protocol versions
 * @param applicationProtocols ALPN protocols to offer, most preferred first; empty for no ALPN
 * @param handshakeTimeout how long the handshake may take after the TCP connect ({@link
 *     Timeouts#NONE} for no limit)
 * @param ciphers the suites and groups to offer ({@link CipherPolicy#DEFAULT}: what a default
 *     server accepts, no more)
 * @param engine the TLS implementation ({@link TlsEngineKind#defaultKind()} unless set)
 */
public record TlsClientConfig(
    TrustMaterial trust,
    KeyMaterial clientKey,
    String serverName,
    boolean verifyHostname,
    List<String> protocols,
    List<String> applicationProtocols,
    Duration handshakeTimeout,
    CipherPolicy ciphers,
    TlsEngineKind engine) {

  public TlsClientConfig {
    if (protocols.isEmpty()) {
      throw new IllegalArgumentException("no TLS protocol enabled");
    }
    protocols = List.copyOf(protocols);
    applicationProtocols = List.copyOf(applicationProtocols);
    Timeouts.check("handshakeTimeout", handshakeTimeout);
    java.util.Objects.requireNonNull(ciphers, "ciphers");
    java.util.Objects.requireNonNull(engine, "engine");
  }

  /** A client trusting {@code trust}, verifying host names, TLS 1.3 and 1.2, no ALPN. */
  public static TlsClientConfig trusting(TrustMaterial trust) {
    return new TlsClientConfig(
        trust,
        null,
        null,
        true,
        TlsServerConfig.DEFAULT_PROTOCOLS,
        List.of(),
        TlsServerConfig.DEFAULT_HANDSHAKE_TIMEOUT,
        CipherPolicy.DEFAULT,
        TlsEngineKind.defaultKind());
  }

  /** A client trusting the JDK's default authorities. */
  public static TlsClientConfig defaults() {
    return trusting(null);
  }

  /** With a client certificate. */
  public TlsClientConfig withClientKey(KeyMaterial key) {
    return new TlsClientConfig(
        trust,
        key,
        serverName,
        verifyHostname,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        engine);
  }

  /** With the server name to send (SNI) and verify. */
  public TlsClientConfig withServerName(String name) {
    return new TlsClientConfig(
        trust,
        clientKey,
        name,
        verifyHostname,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        engine);
  }

  /** With host-name verification on or off (the certificate chain is always verified). */
  public TlsClientConfig withHostnameVerification(boolean on) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        on,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        engine);
  }

  /** With only these protocol versions enabled. */
  public TlsClientConfig withProtocols(String... enabled) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        verifyHostname,
        List.of(enabled),
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        engine);
  }

  /** With these ALPN protocols offered. */
  public TlsClientConfig withApplicationProtocols(String... alpn) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        verifyHostname,
        protocols,
        List.of(alpn),
        handshakeTimeout,
        ciphers,
        engine);
  }

  /** With a handshake timeout. */
  public TlsClientConfig withHandshakeTimeout(Duration timeout) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        verifyHostname,
        protocols,
        applicationProtocols,
        timeout,
        ciphers,
        engine);
  }

  /** With these cipher suites and groups offered. */
  public TlsClientConfig withCiphers(CipherPolicy policy) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        verifyHostname,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        policy,
        engine);
  }

  /** With this TLS engine. */
  public TlsClientConfig withEngine(TlsEngineKind kind) {
    return new TlsClientConfig(
        trust,
        clientKey,
        serverName,
        verifyHostname,
        protocols,
        applicationProtocols,
        handshakeTimeout,
        ciphers,
        kind);
  }
}
