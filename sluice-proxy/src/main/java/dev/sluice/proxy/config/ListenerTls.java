package dev.sluice.proxy.config;

import java.nio.file.Path;
import java.util.List;

/** TLS on a listener: terminated here, or passed through untouched. */
public sealed interface ListenerTls {

  /**
   * Terminated here: certificates chosen by the client's server name (the names are read from each
   * certificate; the first certificate also answers clients whose name matches none), ALPN, and
   * optional client certificates.
   */
  record Terminate(
      List<CertificateFiles> certificates,
      List<String> alpn,
      ClientAuthMode clientAuth,
      Path clientCa,
      List<String> protocols)
      implements ListenerTls {
    public Terminate {
      certificates = List.copyOf(certificates);
      alpn = List.copyOf(alpn);
      protocols = List.copyOf(protocols);
    }
  }

  /**
   * Passed through: the ClientHello is read (without terminating) for its server name and forwarded
   * untouched with everything after it.
   *
   * @param maxClientHelloBytes the most bytes of ClientHello read before giving up
   */
  record Passthrough(int maxClientHelloBytes) implements ListenerTls {}

  /** A certificate chain and its key, PEM files. */
  record CertificateFiles(Path cert, Path key, String password) {}

  /** Whether clients must present a certificate. */
  enum ClientAuthMode {
    NONE,
    OPTIONAL,
    REQUIRED
  }
}
