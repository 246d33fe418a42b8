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
 * A TLS client on OpenSSL: one SSL_CTX from a {@link TlsClientConfig} (trust: the configured
 * authorities, or the JVM's default ones, never the system's paths; client certificate, protocols,
 * suites, groups); each engine sends its server name (SNI, never an IP address), verifies it
 * against the certificate when the config says so, and offers the config's ALPN protocols. It
 * resumes sessions: each server's (host, port and name sent) is kept in a bounded cache of its own
 * ({@link ClientSessionCache}), not in OpenSSL's, and offered to the next connection to it.
 */
@SuppressWarnings("restricted") // native calls are this package's job
public final class OpenSslClientContext implements OpenSslEngine.Owner {
  private static final Cleaner CLEANER = Cleaner.create();

  private final TlsClientConfig config;
  private final MemorySegment ctx;
  private final byte[] alpn;
  private final ClientSessionCache sessions;

  private OpenSslClientContext(
      TlsClientConfig config, MemorySegment ctx, byte[] alpn, ClientSessionCache sessions) {
    this.config = config;
    this.ctx = ctx;
    this.alpn = alpn;
    this.sessions = sessions;
  }

  /** How many servers' sessions it holds now. */
  public int cachedSessions() {
    return sessions.size();
  }

  /** SSL_SESSIONs held by the session caches of every OpenSSL client in this process. */
  public static long liveSessionCount() {
    return ClientSessionCache.liveCount();
  }

  /**
   * Builds the context of {@code config}, keeping the sessions of up to {@code sessionCacheSize}
   * servers (0: none, every handshake a full one).
   *
   * @throws GeneralSecurityException when OpenSSL refuses a setting, the certificate or the key
   */
  public static OpenSslClientContext create(TlsClientConfig config, int sessionCacheSize)
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
      // New sessions come to the callback, which keeps them; none in OpenSSL's internal cache.
      LibraryCalls.setSessionCacheMode(
          ctx, OpenSsl.SSL_SESS_CACHE_CLIENT | OpenSsl.SSL_SESS_CACHE_NO_INTERNAL_STORE);
      OpenSsl.Lib.SSL_CTX_SESS_SET_NEW_CB.invokeExact(ctx, NEW_SESSION);
      ClientSessionCache sessions = new ClientSessionCache(sessionCacheSize);
      OpenSslClientContext client =
          new OpenSslClientContext(
              config, ctx, ContextSetup.alpnWire(config.applicationProtocols()), sessions);
      CLEANER.register(
          client,
          () -> {
            sessions.clear();
            ContextSetup.free(ctx);
          });
      return client;
    } catch (GeneralSecurityException | RuntimeException e) {
      ContextSetup.free(ctx);
      throw e;
    } catch (Throwable e) {
      ContextSetup.free(ctx);
      throw OpenSsl.rethrow(e);
    }
  }

  /**
   * A client engine for a connection to {@code host}.
   *
   * @param host verified against the certificate (when the config verifies host names)
   * @param serverName sent as SNI unless an IP address; null for {@code host}
   */
  public SSLEngine newEngine(String host, int port, String serverName) throws SSLException {
    return newEngine(host, port, serverName, host + ":" + port);
  }

  /**
   * A client engine for a connection to {@code host}, resuming the session last kept for {@code
   * server} and the name sent.
   *
   * @param server where the connection goes (an address), the session cache's key with the name
   */
  public SSLEngine newEngine(String host, int port, String serverName, String server)
      throws SSLException {
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
        if (!LibraryCalls.setHostName(ssl, arena.allocateFrom(sni))) {
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
      String key = ClientSessionCache.key(server, sni != null && !isIpLiteral(sni) ? sni : null);
      engine.sessionKey(key);
      sessions.offer(key, ssl);
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

  /** Frees every session this client keeps (the next connections handshake in full). */
  public void clearSessions() {
    sessions.clear();
  }

  private static final MemorySegment NEW_SESSION;

  static {
    try {
      NEW_SESSION =
          java.lang.foreign.Linker.nativeLinker()
              .upcallStub(
                  java.lang.invoke.MethodHandles.lookup()
                      .findStatic(
                          OpenSslClientContext.class,
                          "onNewSession",
                          java.lang.invoke.MethodType.methodType(
                              int.class, MemorySegment.class, MemorySegment.class)),
                  java.lang.foreign.FunctionDescriptor.of(
                      java.lang.foreign.ValueLayout.JAVA_INT,
                      java.lang.foreign.ValueLayout.ADDRESS,
                      java.lang.foreign.ValueLayout.ADDRESS),
                  Arena.global());
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * int (*)(SSL *ssl, SSL_SESSION *sess): a session (a TLS 1.2 one at the end of its handshake, a
   * TLS 1.3 ticket whenever it comes) for the engine's server; 1 keeps OpenSSL's reference.
   */
  private static int onNewSession(MemorySegment ssl, MemorySegment session) {
    ClientSessionCache cache;
    String key;
    try {
      if (!(CallbackBio.current() instanceof OpenSslEngine engine
          && engine.owner() instanceof OpenSslClientContext client
          && engine.sessionKey() != null
          && client.sessions.capacity() > 0)) {
        return 0;
      }
      cache = client.sessions;
      key = engine.sessionKey();
    } catch (Throwable e) {
      return 0;
    }
    try {
      cache.store(key, session);
      return 1;
    } catch (Throwable e) {
      // Once stored, the cache owns OpenSSL's reference: 0 would have OpenSSL free it under it.
      return cache.holds(session) ? 1 : 0;
    }
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || host.matches("[0-9.]+");
  }
}
