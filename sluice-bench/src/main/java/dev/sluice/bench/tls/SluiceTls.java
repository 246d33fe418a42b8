package dev.sluice.bench.tls;

import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsClientConfig;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import dev.sluice.tls.TrustMaterial;
import java.security.GeneralSecurityException;
import java.util.List;

/** How the Sluice arms set up TLS: {@code dev.sluice.tls} defaults, the benchmark's version. */
public final class SluiceTls {
  private SluiceTls() {}

  /** A server presenting the benchmark's certificate. */
  public static TlsServer server(BenchTls tls) throws GeneralSecurityException {
    return TlsServer.create(
        TlsServerConfig.of(KeyMaterial.of(tls.key(), List.of(tls.certificate())))
            .withProtocols(tls.version().protocol()));
  }

  /** A client trusting the benchmark's certificate, verifying its host name. */
  public static TlsClient client(BenchTls tls) throws GeneralSecurityException {
    return TlsClient.create(
        TlsClientConfig.trusting(TrustMaterial.of(List.of(tls.certificate())))
            .withServerName(BenchCertificate.HOST)
            .withProtocols(tls.version().protocol()));
  }
}
