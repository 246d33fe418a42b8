package dev.sluice.proxy.config;

import java.nio.file.Path;
import java.util.List;

/** TLS on a listener: terminated here, or passed through untouched. */
public sealed interface ListenerTls {

  /**
   * Terminated here: certificates chosen by the client's server name (the names are read from each
   * certificate; the first certificate also answers clients whose name matches none), ALPN, and
   * optional client certificates.
   *
   * @param profile the Mozilla profile the protocols and ciphers start from
   * @param ciphers the suites and groups offered (the profile's, or those configured)
   * @param ocspStaple whether OCSP responses are stapled
   * @param sessionCache how many sessions are kept for resumption, and how long
   * @param engine the TLS engine: auto (OpenSSL when it loads), openssl, jdk
   * @param ticketKeyFile session-ticket keys in HAProxy's tls-ticket-keys format (OpenSSL), or null
   *     for the engine's own
   */
  record Terminate(
      List<Certificate> certificates,
      List<String> alpn,
      ClientAuthMode clientAuth,
      Path clientCa,
      List<String> protocols,
      dev.sluice.tls.TlsProfile profile,
      dev.sluice.tls.CipherPolicy ciphers,
      boolean ocspStaple,
      SessionCache sessionCache,
      dev.sluice.tls.TlsEngineKind engine,
      Path ticketKeyFile)
      implements ListenerTls {
    public Terminate {
      certificates = List.copyOf(certificates);
      alpn = List.copyOf(alpn);
      protocols = List.copyOf(protocols);
    }

    /**
     * With the defaults: the intermediate profile, no stapling, the default session cache and
     * engine.
     */
    public Terminate(
        List<Certificate> certificates,
        List<String> alpn,
        ClientAuthMode clientAuth,
        Path clientCa,
        List<String> protocols) {
      this(
          certificates,
          alpn,
          clientAuth,
          clientCa,
          protocols,
          dev.sluice.tls.TlsProfile.INTERMEDIATE,
          dev.sluice.tls.CipherPolicy.DEFAULT,
          false,
          SessionCache.DEFAULT,
          dev.sluice.tls.TlsEngineKind.defaultKind(),
          null);
    }
  }

  /**
   * Resumption on a terminating listener (the JDK's per-context {@code SSLSessionContext}).
   *
   * @param size the most sessions kept for clients that resume by session ID (TLS 1.2 without
   *     tickets); a ticket holds its session itself and costs the server nothing
   * @param timeout how long a session may be resumed, by ID or by ticket (whole seconds)
   */
  record SessionCache(int size, java.time.Duration timeout) {
    /** The JDK's defaults: 20,480 sessions, 24 hours. */
    public static final SessionCache DEFAULT =
        new SessionCache(20_480, java.time.Duration.ofHours(24));

    /** The longest a TLS 1.3 ticket may live (RFC 8446, 4.6.1). */
    public static final java.time.Duration MAX_TIMEOUT = java.time.Duration.ofDays(7);
  }

  /**
   * Passed through: the ClientHello is read (without terminating) for its server name and forwarded
   * untouched with everything after it.
   *
   * @param maxClientHelloBytes the most bytes of ClientHello read before giving up
   */
  record Passthrough(int maxClientHelloBytes) implements ListenerTls {}

  /** A certificate chain and its private key. */
  sealed interface Certificate {
    /** Loads the chain and key. */
    dev.sluice.tls.KeyMaterial load() throws dev.sluice.tls.KeyMaterialException;

    /** The files it is read from (to watch, and to tell a renewed certificate). */
    List<Path> files();
  }

  /** PEM files: the chain, and the key (PKCS#8, PKCS#1 or SEC1; {@code password} if encrypted). */
  record Pem(Path cert, Path key, String password) implements Certificate {
    @Override
    public dev.sluice.tls.KeyMaterial load() throws dev.sluice.tls.KeyMaterialException {
      return password == null
          ? dev.sluice.tls.KeyMaterial.fromPem(cert, key)
          : dev.sluice.tls.KeyMaterial.fromPem(cert, key, password.toCharArray());
    }

    @Override
    public List<Path> files() {
      return List.of(cert, key);
    }
  }

  /** A PKCS#12 file holding the chain and the key. */
  record Pkcs12(Path file, String password) implements Certificate {
    @Override
    public dev.sluice.tls.KeyMaterial load() throws dev.sluice.tls.KeyMaterialException {
      return dev.sluice.tls.KeyMaterial.fromPkcs12(file, password.toCharArray());
    }

    @Override
    public List<Path> files() {
      return List.of(file);
    }
  }

  /** Whether clients must present a certificate. */
  enum ClientAuthMode {
    NONE,
    OPTIONAL,
    REQUIRED
  }
}
