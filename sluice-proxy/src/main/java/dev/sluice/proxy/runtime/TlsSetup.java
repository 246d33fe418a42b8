package dev.sluice.proxy.runtime;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ConfigException;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.ListenerTls;
import dev.sluice.proxy.config.Problem;
import dev.sluice.tls.CipherSuites;
import dev.sluice.tls.ClientAuth;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsClientConfig;
import dev.sluice.tls.TlsProfile;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import dev.sluice.tls.TrustMaterial;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;

/** Builds a listener's TLS server from its configuration. */
final class TlsSetup {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TlsSetup.class);

  private TlsSetup() {}

  /**
   * The server for a terminating listener: each certificate answers the names it is for (its
   * subject alternative names), the first one also every other name and clients that send none.
   */
  static TlsServer server(
      ListenerTls.Terminate tls, Duration handshakeTimeout, String source, String listener)
      throws ConfigException {
    String path = "listeners." + listener + ".tls";
    try {
      TlsServerConfig config = null;
      for (ListenerTls.Certificate certificate : tls.certificates()) {
        KeyMaterial key = certificate.load();
        config = config == null ? TlsServerConfig.of(key) : config;
        for (String name : ConfigReader.serverNames(key.certificate())) {
          if (!config.keysByServerName().containsKey(name)) {
            config = config.withServerName(name, key);
          }
        }
      }
      if (config == null) {
        throw new ConfigException(List.of(new Problem(source, 0, path, "no certificate")));
      }
      config =
          config
              .withProtocols(tls.protocols().toArray(String[]::new))
              .withApplicationProtocols(tls.alpn().toArray(String[]::new))
              .withHandshakeTimeout(handshakeTimeout)
              .withCiphers(tls.ciphers())
              .withOcspStapling(tls.ocspStaple())
              .withEngine(tls.engine())
              .withSessionTicketKeys(tls.ticketKeyFile());
      if (tls.profile() == TlsProfile.OLD) {
        warnWhatOldLacks(path);
      }
      if (tls.clientAuth() != ListenerTls.ClientAuthMode.NONE) {
        config =
            config.withClientAuth(
                tls.clientAuth() == ListenerTls.ClientAuthMode.REQUIRED
                    ? ClientAuth.REQUIRED
                    : ClientAuth.OPTIONAL,
                TrustMaterial.fromPem(tls.clientCa()));
      }
      TlsServer server = TlsServer.create(config);
      server.sessions().setSessionCacheSize(tls.sessionCache().size());
      server.sessions().setSessionTimeout((int) tls.sessionCache().timeout().toSeconds());
      return server;
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new ConfigException(List.of(new Problem(source, 0, path, e.getMessage())));
    }
  }

  /** What of Mozilla's old profile this JVM does not offer: said once per listener build. */
  private static void warnWhatOldLacks(String path) {
    List<String> missing = TlsProfile.OLD.unavailable();
    LOG.warn(
        "{}.profile old: {} are never offered (protocols takes TLSv1.3 and TLSv1.2 only){}",
        path,
        String.join(" and ", TlsProfile.OLD_PROTOCOLS_NOT_OFFERED),
        missing.isEmpty()
            ? ""
            : "; this JVM cannot negotiate "
                + missing.stream().map(CipherSuites::openSsl).toList()
                + " (disabled by jdk.tls.disabledAlgorithms), so they are left out");
  }

  /** The client a cluster re-encrypts to its upstreams with; verification is always on. */
  static TlsClient client(
      ClusterConfig.UpstreamTls tls, Duration handshakeTimeout, String source, String cluster)
      throws ConfigException {
    try {
      TlsClientConfig config =
          TlsClientConfig.trusting(tls.ca() == null ? null : TrustMaterial.fromPem(tls.ca()))
              .withApplicationProtocols(tls.alpn().toArray(String[]::new))
              .withHandshakeTimeout(handshakeTimeout)
              .withEngine(tls.engine());
      if (tls.certificate() != null) {
        config = config.withClientKey(tls.certificate().load());
      }
      return TlsClient.create(config, tls.sessionCacheSize());
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new ConfigException(
          List.of(new Problem(source, 0, "clusters." + cluster + ".tls", e.getMessage())));
    }
  }
}
