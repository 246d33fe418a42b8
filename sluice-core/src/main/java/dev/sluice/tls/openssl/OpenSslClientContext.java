package dev.sluice.tls.openssl;

import dev.sluice.tls.TlsClientConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * A TLS client on OpenSSL: one SSL_CTX from a {@link TlsClientConfig} (trust, client certificate,
 * protocols, suites, groups); each engine sends its server name (SNI, never an IP address),
 * verifies it against the certificate when the config says so, and offers the config's ALPN
 * protocols.
 */
public final class OpenSslClientContext implements OpenSslEngine.Owner {
  private static final Cleaner CLEANER = Cleaner.create();

  private final TlsClientConfig config;
  private final MemorySegment ctx;
  private final byte[] alpn;

  private OpenSslClientContext(TlsClientConfig config, MemorySegment ctx, byte[] alpn) {
    this.config = config;
    this.ctx = ctx;
    this.alpn = alpn;
  }

  /**
   * Builds the context of {@code config}.
   *
   * @throws GeneralSecurityException when OpenSSL refuses a setting, the certificate or the key
   */
  public static OpenSslClientContext create(TlsClientConfig config)
      throws GeneralSecurityException {
    String reason = OpenSsl.unavailableReason();
    if (reason != null) {
      throw new GeneralSecurityException("the OpenSSL TLS engine is not available: " + reason);
    }
    MemorySegment ctx = ContextSetup.newContext(false);
    try {
      ContextSetup.applyCiphers(ctx, config.protocols(), config.ciphers());
      ContextSetup.trust(ctx, config.trust(), OpenSsl.SSL_VERIFY_PEER, false);
      if (config.clientKey() != null) {
        ContextSetup.useKey(ctx, config.clientKey());
      }
      OpenSslClientContext client =
          new OpenSslClientContext(
              config, ctx, ContextSetup.alpnWire(config.applicationProtocols()));
      CLEANER.register(client, () -> ContextSetup.free(ctx));
      return client;
    } catch (GeneralSecurityException | RuntimeException e) {
      ContextSetup.free(ctx);
      throw e;
    }
  }

  /**
   * A client engine for a connection to {@code host}.
   *
   * @param host verified against the certificate (when the config verifies host names)
   * @param serverName sent as SNI unless an IP address; null for {@code host}
   */
  public SSLEngine newEngine(String host, int port, String serverName) throws SSLException {
    OpenSslEngine engine =
        new OpenSslEngine(
            this,
            ctx,
            true,
            host,
            port,
            config.clientKey() == null ? List.of() : config.clientKey().chain());
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment ssl = engine.ssl();
      String sni = serverName != null ? serverName : host;
      if (sni != null && !isIpLiteral(sni)) {
        if ((long)
                OpenSsl.Lib.SSL_CTRL.invokeExact(
                    ssl, OpenSsl.SSL_CTRL_SET_TLSEXT_HOSTNAME, 0L, arena.allocateFrom(sni))
            != 1) {
          throw OpenSsl.failure("cannot send the server name " + sni, false);
        }
        engine.serverNameSent(sni);
      }
      if (config.verifyHostname() && sni != null) {
        int ok =
            isIpLiteral(sni)
                ? (int)
                    OpenSsl.Lib.X509_VERIFY_PARAM_SET1_IP_ASC.invokeExact(
                        (MemorySegment) OpenSsl.Lib.SSL_GET0_PARAM.invokeExact(ssl),
                        arena.allocateFrom(sni))
                : (int) OpenSsl.Lib.SSL_SET1_HOST.invokeExact(ssl, arena.allocateFrom(sni));
        if (ok != 1) {
          throw OpenSsl.failure("cannot verify the server name " + sni, false);
        }
      }
      if (alpn.length > 0
          && (int)
                  OpenSsl.Lib.SSL_SET_ALPN_PROTOS.invokeExact(
                      ssl,
                      arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, alpn),
                      alpn.length)
              != 0) {
        throw OpenSsl.failure("cannot offer ALPN", false);
      }
      return engine;
    } catch (SSLException | RuntimeException e) {
      engine.free();
      throw e;
    } catch (Throwable e) {
      engine.free();
      throw OpenSsl.rethrow(e);
    }
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || host.matches("[0-9.]+");
  }
}
