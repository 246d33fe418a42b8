package dev.sluice.tls;

import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.SocketOptions;
import dev.sluice.tls.openssl.OpenSslClientContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The client side of TLS: one {@link SSLContext} built from a {@link TlsClientConfig} (so sessions
 * can be resumed), used for any number of connections:
 *
 * <pre>{@code
 * TlsClient tls = TlsClient.create(TlsClientConfig.trusting(TrustMaterial.fromPem(caFile)));
 * TlsConnection c = tls.connect(group, address, SocketOptions.defaults(), handler).get();
 * }</pre>
 */
public final class TlsClient {
  /** How many servers' sessions a client keeps to resume unless told otherwise. */
  public static final int DEFAULT_SESSION_CACHE_SIZE = 256;

  private final TlsClientConfig config;
  private final SSLContext context;
  private final OpenSslClientContext openssl;

  private TlsClient(TlsClientConfig config, SSLContext context, OpenSslClientContext openssl) {
    this.config = config;
    this.context = context;
    this.openssl = openssl;
  }

  /**
   * Builds the client's TLS context, keeping up to {@link #DEFAULT_SESSION_CACHE_SIZE} servers'
   * sessions; see {@link #create(TlsClientConfig, int)}.
   */
  public static TlsClient create(TlsClientConfig config) throws GeneralSecurityException {
    return create(config, DEFAULT_SESSION_CACHE_SIZE);
  }

  /**
   * Builds the client's TLS context, on the engine the configuration asks for ({@link
   * TlsEngineKind#AUTO}: the JDK; OpenSSL only when asked for).
   *
   * @param sessionCacheSize how many servers' sessions it keeps to resume, the least recently used
   *     dropped beyond that; 0 for none (every handshake a full one), on the OpenSSL engine only:
   *     the JDK's cache takes 0 as "no limit"
   * @throws GeneralSecurityException when the engine rejects the configuration, or OpenSSL is asked
   *     for and cannot run
   * @throws IllegalArgumentException when {@code sessionCacheSize} is negative, or 0 on the JDK
   */
  public static TlsClient create(TlsClientConfig config, int sessionCacheSize)
      throws GeneralSecurityException {
    TlsEngineKind engine = config.engine().resolveForClient();
    String refused = sessionCacheSizeRefusal(sessionCacheSize, engine);
    if (refused != null) {
      throw new IllegalArgumentException(refused);
    }
    if (engine == TlsEngineKind.OPENSSL) {
      TlsClient client =
          new TlsClient(config, null, OpenSslClientContext.create(config, sessionCacheSize));
      try {
        SSLEngine probe = client.newEngine("localhost", 443, "localhost");
        ((dev.sluice.tls.openssl.OpenSslEngine) probe).free();
      } catch (SSLException e) {
        throw new GeneralSecurityException(e.getMessage(), e);
      }
      return client;
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        config.clientKey() == null
            ? null
            : new KeyManager[] {KeyManagers.forClient(config.clientKey())},
        config.trust() == null ? null : config.trust().trustManagers(),
        null);
    context.getClientSessionContext().setSessionCacheSize(sessionCacheSize);
    TlsClient client = new TlsClient(config, context, null);
    JdkCiphers.apply(
        config.ciphers(),
        config.protocols(),
        context.getDefaultSSLParameters(),
        java.util.Set.of(context.getSupportedSSLParameters().getCipherSuites()));
    try {
      client.newEngine("localhost", 443, "localhost"); // fail now on unknown protocols
    } catch (SSLException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
    return client;
  }

  /**
   * Why a client on {@code engine} ({@link TlsEngineKind#JDK} or {@link TlsEngineKind#OPENSSL})
   * cannot keep {@code sessionCacheSize} sessions, or null when it can: never a negative size, and
   * 0 (no resumption) on OpenSSL only, since the JDK's cache takes 0 as no limit.
   */
  public static String sessionCacheSizeRefusal(int sessionCacheSize, TlsEngineKind engine) {
    if (sessionCacheSize < 0) {
      return "a session cache of " + sessionCacheSize + " sessions";
    }
    if (sessionCacheSize == 0 && engine != TlsEngineKind.OPENSSL) {
      return "a session cache of 0 (no resumption) needs the OpenSSL engine: the JDK's takes 0 as"
          + " no limit";
    }
    return null;
  }

  /** The configuration this client was built from. */
  public TlsClientConfig config() {
    return config;
  }

  /**
   * How many servers' sessions this client keeps to resume (on OpenSSL, its own cache; on the JDK,
   * the context's client session cache).
   */
  public int cachedSessions() {
    if (openssl != null) {
      return openssl.cachedSessions();
    }
    return java.util.Collections.list(context.getClientSessionContext().getIds()).size();
  }

  /** Forgets every session kept: the next connections handshake in full. */
  public void clearSessions() {
    if (openssl != null) {
      openssl.clearSessions();
    } else {
      javax.net.ssl.SSLSessionContext sessions = context.getClientSessionContext();
      for (byte[] id : java.util.Collections.list(sessions.getIds())) {
        javax.net.ssl.SSLSession session = sessions.getSession(id);
        if (session != null) {
          session.invalidate();
        }
      }
    }
  }

  /** The engine this client runs: {@link TlsEngineKind#JDK} or {@link TlsEngineKind#OPENSSL}. */
  public TlsEngineKind engine() {
    return openssl != null ? TlsEngineKind.OPENSSL : TlsEngineKind.JDK;
  }

  /**
   * Connects on the group's next loop; see {@link #connect(EventLoop, SocketAddress, String,
   * SocketOptions, ConnectionHandler)}.
   */
  public CompletableFuture<TlsConnection> connect(
      EventLoopGroup group,
      SocketAddress address,
      SocketOptions options,
      ConnectionHandler handler) {
    return connect(group.next(), address, config.serverName(), options, handler);
  }

  /**
   * Connects to {@code address} and runs the TLS handshake. The future completes after {@link
   * ConnectionHandler#onActive} (the handshake has finished), or fails: with a {@link
   * java.net.ConnectException} when the TCP connect fails, with a {@link TlsHandshakeException}
   * when the handshake does. The handler hears nothing of a connection that never became active.
   *
   * @param serverName sent as SNI and verified against the certificate; null for the address's host
   */
  public CompletableFuture<TlsConnection> connect(
      EventLoop loop,
      SocketAddress address,
      String serverName,
      SocketOptions options,
      ConnectionHandler handler) {
    CompletableFuture<TlsConnection> ready = new CompletableFuture<>();
    TlsConnection tls = newConnection(address, serverName, handler, ready);
    loop.connect(address, options, tls.transportHandler())
        .whenComplete(
            (transport, error) -> {
              if (error != null) {
                tls.transportConnectFailed(error); // a handshake that started reports its own
              }
            });
    return ready;
  }

  /**
   * A transport handler that runs TLS as a client over a connection being made to {@code address},
   * presenting the decrypted stream to {@code app}; {@code ready} (may be null) completes when the
   * handshake has finished.
   */
  public ConnectionHandler newConnectionHandler(
      SocketAddress address,
      String serverName,
      ConnectionHandler app,
      CompletableFuture<TlsConnection> ready) {
    return newConnection(address, serverName, app, ready).transportHandler();
  }

  private TlsConnection newConnection(
      SocketAddress address,
      String serverName,
      ConnectionHandler app,
      CompletableFuture<TlsConnection> ready) {
    String host = serverName != null ? serverName : hostOf(address);
    int port = address instanceof InetSocketAddress inet ? inet.getPort() : -1;
    if (host == null && config.verifyHostname()) {
      throw new IllegalArgumentException(
          "no server name to verify for " + address + ": set TlsClientConfig.serverName");
    }
    TlsConnection.EngineFactory engines =
        transport -> newEngine(host, port, serverName, String.valueOf(address));
    return new TlsConnection(engines, app, config.handshakeTimeout(), ready);
  }

  private SSLEngine newEngine(String host, int port, String explicitServerName)
      throws SSLException {
    return newEngine(host, port, explicitServerName, host + ":" + port);
  }

  private SSLEngine newEngine(String host, int port, String explicitServerName, String server)
      throws SSLException {
    if (openssl != null) {
      return openssl.newEngine(host, port, explicitServerName, server);
    }
    SSLEngine engine =
        host == null ? context.createSSLEngine() : context.createSSLEngine(host, port);
    engine.setUseClientMode(true);
    SSLParameters parameters = engine.getSSLParameters();
    try {
      parameters.setProtocols(config.protocols().toArray(String[]::new));
      parameters.setApplicationProtocols(config.applicationProtocols().toArray(String[]::new));
      parameters.setCipherSuites(config.ciphers().allSuites().toArray(String[]::new));
      if (!config.ciphers().groups().isEmpty()) {
        parameters.setNamedGroups(config.ciphers().groups().toArray(String[]::new));
      }
      if (config.verifyHostname()) {
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
      }
      String sni = explicitServerName != null ? explicitServerName : host;
      if (sni != null && !isIpLiteral(sni)) {
        parameters.setServerNames(List.of(new SNIHostName(sni)));
      }
      engine.setSSLParameters(parameters);
    } catch (IllegalArgumentException e) {
      throw new SSLException("invalid TLS client parameters: " + e.getMessage(), e);
    }
    return engine;
  }

  private static String hostOf(SocketAddress address) {
    return address instanceof InetSocketAddress inet ? inet.getHostString() : null;
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || host.matches("[0-9.]+");
  }
}
