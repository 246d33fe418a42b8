package dev.sluice.tls;

import dev.sluice.net.ByteAccount;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.DetectingHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.tls.openssl.OpenSslServerContext;
import java.io.IOException;
import java.net.SocketAddress;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSessionContext;

/**
 * The server side of TLS: one {@link SSLContext} built from a {@link TlsServerConfig}, shared by
 * every connection it accepts. Build it once (it validates the configuration) and listen with it:
 *
 * <pre>{@code
 * TlsServer tls = TlsServer.create(TlsServerConfig.of(KeyMaterial.fromPem(chain, key)));
 * Listener listener = tls.listen(group, address, SocketOptions.defaults(), MyHandler::new);
 * }</pre>
 */
public final class TlsServer {
  private final TlsServerConfig config;
  private final SSLContext context;
  private final SSLParameters parameters;
  private final OpenSslServerContext openssl;

  private TlsServer(
      TlsServerConfig config,
      SSLContext context,
      SSLParameters parameters,
      OpenSslServerContext openssl) {
    this.config = config;
    this.context = context;
    this.parameters = parameters;
    this.openssl = openssl;
  }

  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");

  /**
   * Builds the server's TLS context, on the engine the configuration asks for ({@link
   * TlsEngineKind#AUTO}: OpenSSL when it loads and takes the settings, else the JDK, logged with
   * OpenSSL's reason).
   *
   * @throws GeneralSecurityException when the engine rejects the configuration (an unknown
   *     protocol...), or OpenSSL is asked for and cannot run
   */
  public static TlsServer create(TlsServerConfig config) throws GeneralSecurityException {
    if (config.engine().resolve(config.sessionTicketKeys() != null) == TlsEngineKind.OPENSSL) {
      try {
        OpenSslServerContext openssl = OpenSslServerContext.create(config);
        if (config.ocspStapling()) {
          // Owned by the context, which every copy of this server (withHandshakeTimeout) shares.
          OcspStapling.register(openssl, config);
        }
        return new TlsServer(config, null, null, openssl);
      } catch (GeneralSecurityException refused) {
        // Under auto, a setting OpenSSL's policy refuses (a 1024-bit RSA key or a SHA-1 chain
        // under Debian's SECLEVEL=2) that the JDK takes runs on the JDK; a key file needs OpenSSL.
        if (config.engine() != TlsEngineKind.AUTO || config.sessionTicketKeys() != null) {
          throw refused;
        }
        LOG.log(
            System.Logger.Level.WARNING,
            "TLS engine auto: jdk for this server, OpenSSL refused its settings: {0}",
            refused.getMessage());
      }
    }
    SSLContext context = OcspStapling.newContext(config.ocspStapling());
    context.init(
        new KeyManager[] {KeyManagers.forServer(config)},
        config.clientTrust() == null ? null : config.clientTrust().trustManagers(),
        null);
    SSLParameters parameters = context.getDefaultSSLParameters();
    parameters.setProtocols(config.protocols().toArray(String[]::new));
    JdkCiphers.apply(
        config.ciphers(),
        config.protocols(),
        parameters,
        Set.of(context.getSupportedSSLParameters().getCipherSuites()));
    parameters.setApplicationProtocols(config.applicationProtocols().toArray(String[]::new));
    switch (config.clientAuth()) {
      case REQUIRED -> parameters.setNeedClientAuth(true);
      case OPTIONAL -> parameters.setWantClientAuth(true);
      case NONE -> parameters.setNeedClientAuth(false);
    }
    // No certificate for unknown names: refuse them with unrecognized_name. With a default one,
    // a matcher that takes every name: the JDK keeps a session's server name, and refuses to
    // resume it under another (RFC 6066, section 3), only when a matcher chose that name.
    parameters.setSNIMatchers(
        List.of(config.defaultKey() == null ? knownNames(config) : ANY_HOST_NAME));
    try {
      context.createSSLEngine().setSSLParameters(parameters); // fail now on unknown protocols
    } catch (IllegalArgumentException e) {
      throw new GeneralSecurityException("invalid TLS server parameters: " + e.getMessage(), e);
    }
    if (config.ocspStapling()) {
      OcspStapling.register(context, config);
    }
    return new TlsServer(config, context, parameters, null);
  }

  /**
   * This server with another handshake timeout, sharing its {@link SSLContext}: the sessions it
   * cached and the keys of the tickets it issued, so that clients resume with either.
   */
  public TlsServer withHandshakeTimeout(java.time.Duration timeout) {
    return new TlsServer(config.withHandshakeTimeout(timeout), context, parameters, openssl);
  }

  /** The engine this server runs: {@link TlsEngineKind#JDK} or {@link TlsEngineKind#OPENSSL}. */
  public TlsEngineKind engine() {
    return openssl != null ? TlsEngineKind.OPENSSL : TlsEngineKind.JDK;
  }

  /**
   * The sessions this server keeps for resumption, and its ticket keys: its own, never another
   * server's. Set their number and lifetime here ({@link SSLSessionContext#setSessionCacheSize},
   * {@link SSLSessionContext#setSessionTimeout}).
   */
  public SSLSessionContext sessions() {
    return openssl != null ? openssl.sessions() : context.getServerSessionContext();
  }

  /** The configuration this server was built from. */
  public TlsServerConfig config() {
    return config;
  }

  /**
   * Accepts TLS connections on {@code address}: each gets a fresh handler from {@code handlers},
   * which becomes active once its handshake has finished. A client that sends a plaintext HTTP
   * request gets a 400 reply saying the port speaks TLS; the handler hears of it, like of every
   * failed handshake, through {@link TlsHandshakeListener}.
   *
   * @throws IOException if the address cannot be bound
   */
  public Listener listen(
      EventLoopGroup group,
      SocketAddress address,
      SocketOptions options,
      Supplier<? extends ConnectionHandler> handlers)
      throws IOException {
    return group.listen(address, options, () -> newPortHandler(handlers.get()));
  }

  /**
   * A transport handler that runs TLS as a server and presents the decrypted stream to {@code app}:
   * give it to a connection that has just been accepted, for example from a listener (or a {@link
   * dev.sluice.net.DetectingHandler}) that decides per connection whether to speak TLS.
   */
  public ConnectionHandler newConnectionHandler(ConnectionHandler app) {
    return newConnection(app).transportHandler();
  }

  /**
   * Like {@link #newConnectionHandler}, behind the first stage of a TLS port: a plaintext HTTP
   * request is answered with a 400 and refused before TLS starts.
   */
  public ConnectionHandler newPortHandler(ConnectionHandler app) {
    return newPortHandler(app, ByteAccount.NONE);
  }

  /**
   * Like {@link #newPortHandler(ConnectionHandler)}, charging the few bytes its first stage holds
   * before TLS starts (at most 8, enough to tell an HTTP request) to {@code held}.
   */
  public ConnectionHandler newPortHandler(ConnectionHandler app, ByteAccount held) {
    return new DetectingHandler(
        new TlsPortDetector(newConnection(app), config.handshakeTimeout()),
        TlsPortDetector.MAX_BYTES,
        config.handshakeTimeout(),
        held);
  }

  private TlsConnection newConnection(ConnectionHandler app) {
    return new TlsConnection(this::newEngine, app, config.handshakeTimeout(), null);
  }

  private SSLEngine newEngine(Connection transport) {
    if (openssl != null) {
      return transport.remoteAddress() instanceof java.net.InetSocketAddress peer
          ? openssl.newEngine(peer.getHostString(), peer.getPort())
          : openssl.newEngine(null, -1);
    }
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    engine.setSSLParameters(parameters);
    SSLParameters own = engine.getSSLParameters();
    own.setSNIMatchers(List.of(new SameNameAgain(parameters.getSNIMatchers().iterator().next())));
    engine.setSSLParameters(own);
    return engine;
  }

  /**
   * One connection's server-name matcher: the listener's, and after a HelloRetryRequest only the
   * name the first ClientHello asked for (RFC 8446, section 4.1.2: the second hello is the first
   * with a new key share). Another name would route and fingerprint by one hello and hand out
   * another name's certificate; the JDK refuses it with unrecognized_name. The JDK calls a matcher
   * only for a hello that has a name, so a second hello that drops or adds one is not seen here
   * (the OpenSSL engine, which sees both hellos whole, refuses those too).
   */
  private static final class SameNameAgain extends SNIMatcher {
    private final SNIMatcher listener;
    private SNIServerName first;

    SameNameAgain(SNIMatcher listener) {
      super(listener.getType());
      this.listener = listener;
    }

    @Override
    public boolean matches(SNIServerName name) {
      if (first == null) {
        first = name;
        return listener.matches(name);
      }
      return first.equals(name) && listener.matches(name);
    }
  }

  private static final SNIMatcher ANY_HOST_NAME = SNIHostName.createSNIMatcher(".*");

  private static SNIMatcher knownNames(TlsServerConfig config) {
    List<String> patterns = new ArrayList<>();
    for (String name : config.keysByServerName().keySet()) {
      patterns.add(
          name.startsWith("*.") ? "[^.]+" + Pattern.quote(name.substring(1)) : Pattern.quote(name));
    }
    return SNIHostName.createSNIMatcher(String.join("|", patterns));
  }
}
