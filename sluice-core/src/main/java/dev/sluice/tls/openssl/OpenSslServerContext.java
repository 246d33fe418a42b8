package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sluice.tls.ClientAuth;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.OcspStapling;
import dev.sluice.tls.TlsServerConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

/**
 * A TLS server on OpenSSL: one SSL_CTX per certificate of a {@link TlsServerConfig}, all with the
 * same settings. A connection starts on the default certificate's context (or the first one) and is
 * moved to the certificate its client names in the ClientHello callback, by the same rule as the
 * JDK engine's key manager: the exact name, then a one-label wildcard, then the default; no default
 * refuses the handshake (unrecognized_name). The name is read from the hello itself, before OpenSSL
 * looks for a session to resume, and the connection gets a session id context of that name: a
 * session resumes only under the name it was made for (RFC 6066, section 3), and the connection
 * reports the name its client sent (OpenSSL's SSL_get_servername says a resumed TLS 1.2 session's).
 * The starting context keeps the session cache and ticket keys of every connection, whichever
 * certificate it ends on. With OCSP stapling, each context's status callback staples the response
 * held for its own certificate ({@link OcspStapling#responses}), so a connection moved by SNI
 * staples its certificate's.
 */
@SuppressWarnings("restricted") // native calls are this package's job
public final class OpenSslServerContext implements OpenSslEngine.Owner {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final int SSL_AD_HANDSHAKE_FAILURE = 40;
  private static final int SSL_AD_INTERNAL_ERROR = 80;
  private static final int SSL_AD_ILLEGAL_PARAMETER = 47;

  /** One certificate's context, and where its OCSP responses are read (null without stapling). */
  private record Certificate(MemorySegment ctx, KeyMaterial key, Supplier<byte[]> ocsp) {}

  private final Certificate initial;
  private final Certificate fallback;
  private final Map<String, Certificate> byName;
  private final Map<Long, Certificate> byContext;
  private final byte[] alpn;
  private final TicketKeys ticketKeys;
  private final byte[] sessionContext;
  private final OpenSslSessionContext sessions;

  private OpenSslServerContext(
      Certificate initial,
      Certificate fallback,
      Map<String, Certificate> byName,
      Map<Long, Certificate> byContext,
      byte[] alpn,
      TicketKeys ticketKeys,
      byte[] sessionContext) {
    this.initial = initial;
    this.fallback = fallback;
    this.byName = byName;
    this.byContext = byContext;
    this.alpn = alpn;
    this.ticketKeys = ticketKeys;
    this.sessionContext = sessionContext;
    this.sessions = new OpenSslSessionContext(initial.ctx(), this);
  }

  /**
   * Builds the contexts of {@code config}.
   *
   * @throws GeneralSecurityException when OpenSSL refuses a setting, a certificate or a key
   */
  public static OpenSslServerContext create(TlsServerConfig config)
      throws GeneralSecurityException {
    String reason = OpenSsl.unavailableReason();
    if (reason != null) {
      throw new GeneralSecurityException("the OpenSSL TLS engine is not available: " + reason);
    }
    TicketKeys ticketKeys =
        config.sessionTicketKeys() == null ? null : TicketKeys.load(config.sessionTicketKeys());
    byte[] sessionContext = sessionContext(config);
    Map<KeyMaterial, Certificate> contexts = new IdentityHashMap<>();
    List<MemorySegment> made = new ArrayList<>();
    try {
      Certificate fallback =
          config.defaultKey() == null
              ? null
              : context(config, config.defaultKey(), ticketKeys, sessionContext, contexts, made);
      Map<String, Certificate> byName = new LinkedHashMap<>();
      for (Map.Entry<String, KeyMaterial> e : config.keysByServerName().entrySet()) {
        byName.put(
            e.getKey(), context(config, e.getValue(), ticketKeys, sessionContext, contexts, made));
      }
      Certificate initial = fallback != null ? fallback : byName.values().iterator().next();
      byte[] alpn = ContextSetup.alpnWire(config.applicationProtocols());
      Map<Long, Certificate> byContext = new java.util.HashMap<>();
      for (Certificate certificate : contexts.values()) {
        byContext.put(certificate.ctx().address(), certificate);
      }
      OpenSslServerContext server =
          new OpenSslServerContext(
              initial,
              fallback,
              Map.copyOf(byName),
              Map.copyOf(byContext),
              alpn,
              ticketKeys,
              sessionContext);
      List<MemorySegment> owned = List.copyOf(made);
      CLEANER.register(server, () -> owned.forEach(ContextSetup::free));
      return server;
    } catch (GeneralSecurityException | RuntimeException e) {
      made.forEach(ContextSetup::free);
      throw e;
    }
  }

  private static Certificate context(
      TlsServerConfig config,
      KeyMaterial key,
      TicketKeys ticketKeys,
      byte[] sessionContext,
      Map<KeyMaterial, Certificate> contexts,
      List<MemorySegment> made)
      throws GeneralSecurityException {
    Certificate existing = contexts.get(key);
    if (existing != null) {
      return existing;
    }
    MemorySegment ctx = ContextSetup.newContext(true);
    made.add(ctx);
    ContextSetup.applyCiphers(ctx, config.protocols(), config.ciphers());
    ContextSetup.useKey(ctx, key);
    if (config.clientAuth() != ClientAuth.NONE) {
      int mode =
          OpenSsl.SSL_VERIFY_PEER
              | (config.clientAuth() == ClientAuth.REQUIRED
                  ? OpenSsl.SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                  : 0);
      ContextSetup.trust(ctx, config.clientTrust(), mode, true);
    }
    try (Arena arena = Arena.ofConfined()) {
      OpenSsl.check(
          (int)
              OpenSsl.Lib.SSL_CTX_SET_SESSION_ID_CONTEXT.invokeExact(
                  ctx, arena.allocateFrom(JAVA_BYTE, sessionContext), sessionContext.length),
          "cannot set the session id context");
      // On every context: a TLS 1.3 hello after a HelloRetryRequest is seen by the chosen one.
      // (BoringSSL does not call its certificate callback again: the first hello decides.)
      if (OpenSsl.BORING) {
        OpenSsl.Lib.SSL_CTX_SET_SELECT_CERTIFICATE_CB.invokeExact(
            ctx, Callbacks.SELECT_CERTIFICATE);
      } else {
        OpenSsl.Lib.SSL_CTX_SET_CLIENT_HELLO_CB.invokeExact(
            ctx, Callbacks.CLIENT_HELLO, MemorySegment.NULL);
      }
      LibraryCalls.setServerNameCallback(ctx, Callbacks.SERVER_NAME);
      if (!config.applicationProtocols().isEmpty()) {
        OpenSsl.Lib.SSL_CTX_SET_ALPN_SELECT_CB.invokeExact(ctx, Callbacks.ALPN, MemorySegment.NULL);
      }
      if (config.ocspStapling()) {
        // Called on the context the connection ends on, after the servername callback moved it.
        LibraryCalls.setStatusCallback(ctx, Callbacks.STATUS);
      }
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
    if (ticketKeys != null) {
      ticketKeys.install(ctx);
    }
    Certificate certificate =
        new Certificate(ctx, key, config.ocspStapling() ? OcspStapling.responses(key) : null);
    contexts.put(key, certificate);
    return certificate;
  }

  /**
   * The session id context of every certificate's SSL_CTX: a digest of everything that decides
   * whether a session is acceptable here (the certificates, the client-auth mode and its CAs, the
   * protocols, suites and groups). A session (or ticket) resumes only where it matches, so under
   * ticket keys shared through a file one made on a listener without client auth does not resume on
   * one that requires a certificate, nor one made before a change of certificates or cipher policy
   * after it; and it is the same on every context of one server, whichever certificate SNI moved a
   * connection to. A connection replaces it with {@link #sessionContext(String)} of the name its
   * client sends.
   */
  private static byte[] sessionContext(TlsServerConfig config) throws GeneralSecurityException {
    java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
    List<KeyMaterial> keys = new ArrayList<>();
    if (config.defaultKey() != null) {
      keys.add(config.defaultKey());
    }
    keys.addAll(config.keysByServerName().values());
    for (KeyMaterial key : keys) {
      digestPart(digest, "chain");
      for (java.security.cert.X509Certificate certificate : key.chain()) {
        digestPart(digest, certificate.getEncoded());
      }
    }
    digestPart(digest, "clientAuth " + config.clientAuth());
    if (config.clientAuth() != ClientAuth.NONE && config.clientTrust() != null) {
      for (java.security.cert.X509Certificate ca : config.clientTrust().authorities()) {
        digestPart(digest, ca.getEncoded());
      }
    }
    digestPart(digest, "protocols " + config.protocols());
    digestPart(digest, "tls12 " + config.ciphers().tls12Suites());
    digestPart(digest, "tls13 " + config.ciphers().tls13Suites());
    digestPart(digest, "groups " + config.ciphers().groups());
    return digest.digest(); // 32 bytes: SSL_MAX_SID_CTX_LENGTH
  }

  /**
   * The session id context of a connection whose client asks for {@code serverName} (null: none):
   * the server's, bound to the name (in lower case, as names match), so that a session made for one
   * name never resumes under another, even on the same certificate (RFC 6066, section 3: a server
   * "MUST NOT accept the request to resume the session if the server_name extension contains a
   * different name"), by ticket or from the cache, in TLS 1.2 and 1.3 alike.
   */
  private byte[] sessionContext(String serverName) throws GeneralSecurityException {
    if (serverName == null) {
      return sessionContext;
    }
    java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
    digestPart(digest, sessionContext);
    digestPart(digest, "serverName " + serverName.toLowerCase(Locale.ROOT));
    return digest.digest();
  }

  /** One length-prefixed part, so that no two different settings digest alike. */
  private static void digestPart(java.security.MessageDigest digest, byte[] part) {
    digest.update(java.nio.ByteBuffer.allocate(4).putInt(part.length).array());
    digest.update(part);
  }

  private static void digestPart(java.security.MessageDigest digest, String part) {
    digestPart(digest, part.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** A server engine for a connection from {@code peerHost}. */
  public SSLEngine newEngine(String peerHost, int peerPort) {
    return new OpenSslEngine(
        this,
        initial.ctx(),
        false,
        peerHost,
        peerPort,
        fallback == null ? List.of() : fallback.key().chain());
  }

  /** The ticket keys from the configured file, or null for OpenSSL's own. */
  TicketKeys ticketKeys() {
    return ticketKeys;
  }

  /** The session cache and its settings (of the starting context, which keeps every session). */
  public SSLSessionContext sessions() {
    return sessions;
  }

  private Certificate choose(String serverName) {
    if (serverName == null) {
      return fallback;
    }
    String lower = serverName.toLowerCase(Locale.ROOT);
    Certificate exact = byName.get(lower);
    if (exact != null) {
      return exact;
    }
    int dot = lower.indexOf('.');
    if (dot > 0) {
      Certificate wildcard = byName.get("*" + lower.substring(dot));
      if (wildcard != null) {
        return wildcard;
      }
    }
    return fallback;
  }

  /** The upcalls OpenSSL makes during a server handshake, on the thread running it. */
  static final class Callbacks {
    static final MemorySegment CLIENT_HELLO;
    static final MemorySegment SELECT_CERTIFICATE;
    static final MemorySegment SERVER_NAME;
    static final MemorySegment ALPN;
    static final MemorySegment STATUS;

    /** The file name OpenSSL's allocator is told (it records it only in debug builds). */
    private static final MemorySegment ALLOCATED_IN =
        Arena.global().allocateFrom("OpenSslServerContext.java");

    static {
      try {
        Linker linker = Linker.nativeLinker();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        CLIENT_HELLO =
            linker.upcallStub(
                lookup.findStatic(
                    Callbacks.class,
                    "onClientHello",
                    MethodType.methodType(
                        int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
                Arena.global());
        SELECT_CERTIFICATE =
            linker.upcallStub(
                lookup.findStatic(
                    Callbacks.class,
                    "onSelectCertificate",
                    MethodType.methodType(int.class, MemorySegment.class)),
                FunctionDescriptor.of(JAVA_INT, ADDRESS),
                Arena.global());
        SERVER_NAME =
            linker.upcallStub(
                lookup.findStatic(
                    Callbacks.class,
                    "onServerName",
                    MethodType.methodType(
                        int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
                Arena.global());
        ALPN =
            linker.upcallStub(
                lookup.findStatic(
                    Callbacks.class,
                    "onAlpn",
                    MethodType.methodType(
                        int.class,
                        MemorySegment.class,
                        MemorySegment.class,
                        MemorySegment.class,
                        MemorySegment.class,
                        int.class,
                        MemorySegment.class)),
                FunctionDescriptor.of(
                    JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS),
                Arena.global());
        STATUS =
            linker.upcallStub(
                lookup.findStatic(
                    Callbacks.class,
                    "onStatusRequest",
                    MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class)),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS),
                Arena.global());
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private Callbacks() {}

    private static OpenSslEngine engine() {
      return CallbackBio.current() instanceof OpenSslEngine engine
              && engine.owner() instanceof OpenSslServerContext
          ? engine
          : null;
    }

    /**
     * int (*)(SSL *s, int *al, void *arg), the ClientHello callback: reads the name the client asks
     * for from its hello, moves the connection to that name's certificate and gives it that name's
     * session id context, before OpenSSL looks for a session to resume; no certificate for the name
     * (or none sent, without a default) refuses the handshake.
     */
    private static int onClientHello(MemorySegment ssl, MemorySegment alert, MemorySegment arg) {
      try {
        OpenSslEngine engine = engine();
        if (engine == null) {
          return OpenSsl.SSL_CLIENT_HELLO_ERROR;
        }
        try (Arena arena = Arena.ofConfined()) {
          MemorySegment data = arena.allocate(ADDRESS);
          MemorySegment length = arena.allocate(JAVA_LONG);
          int present =
              (int)
                  OpenSsl.Lib.SSL_CLIENT_HELLO_GET0_EXT.invokeExact(
                      ssl, OpenSsl.TLSEXT_TYPE_SERVER_NAME, data, length);
          int refused =
              choose(
                  engine,
                  ssl,
                  present == 1 ? data.get(ADDRESS, 0).reinterpret(length.get(JAVA_LONG, 0)) : null);
          return refused == 0 ? OpenSsl.SSL_CLIENT_HELLO_SUCCESS : alert(alert, refused);
        }
      } catch (Throwable e) {
        return OpenSsl.SSL_CLIENT_HELLO_ERROR;
      }
    }

    /**
     * enum ssl_select_cert_result_t (*)(const SSL_CLIENT_HELLO *), BoringSSL's ClientHello
     * callback: the same choice as {@link #onClientHello}. It can fail only with a
     * handshake_failure alert, so a refusal is left to {@link #onServerName}, which BoringSSL calls
     * next and which can send the alert the JDK and OpenSSL engines send.
     */
    private static int onSelectCertificate(MemorySegment hello) {
      try {
        OpenSslEngine engine = engine();
        if (engine == null) {
          return SELECT_CERTIFICATE_ERROR;
        }
        // struct ssl_early_callback_ctx begins with the SSL *.
        MemorySegment ssl = hello.reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0);
        try (Arena arena = Arena.ofConfined()) {
          MemorySegment data = arena.allocate(ADDRESS);
          MemorySegment length = arena.allocate(JAVA_LONG);
          int present =
              (int)
                  OpenSsl.Lib.SSL_EARLY_CALLBACK_CTX_EXTENSION_GET.invokeExact(
                      hello, (short) OpenSsl.TLSEXT_TYPE_SERVER_NAME, data, length);
          int refused =
              choose(
                  engine,
                  ssl,
                  present == 1 ? data.get(ADDRESS, 0).reinterpret(length.get(JAVA_LONG, 0)) : null);
          if (refused != 0) {
            engine.refuseWithAlert(refused);
          }
          return SELECT_CERTIFICATE_SUCCESS;
        }
      } catch (Throwable e) {
        return SELECT_CERTIFICATE_ERROR;
      }
    }

    private static final int SELECT_CERTIFICATE_SUCCESS = 1;
    private static final int SELECT_CERTIFICATE_ERROR = -1;

    /**
     * Reads the name the client asks for from its server_name extension ({@code extension}, null
     * when absent), moves the connection to that name's certificate and session id context: 0 when
     * chosen, else the alert that refuses the handshake.
     */
    private static int choose(OpenSslEngine engine, MemorySegment ssl, MemorySegment extension)
        throws Throwable {
      OpenSslServerContext server = (OpenSslServerContext) engine.owner();
      String name;
      if (extension == null) {
        name = null;
      } else {
        switch (ServerNameExtension.parse(extension)) {
          case ServerNameExtension.Name(String host) -> name = host;
          case ServerNameExtension.Malformed(String why) -> {
            engine.refuse("the client's server_name extension is malformed: " + why);
            return OpenSsl.SSL_AD_DECODE_ERROR;
          }
        }
      }
      if (engine.serverNameWasChosen() && !sameName(name, engine.requestedServerName())) {
        // RFC 8446, section 4.1.2: the second hello is the first with a new key share. Another
        // name would route and fingerprint by one hello and hand out another's certificate.
        engine.refuse(
            "the ClientHello after a HelloRetryRequest asks for "
                + describe(name)
                + ", the first asked for "
                + describe(engine.requestedServerName()));
        return SSL_AD_ILLEGAL_PARAMETER;
      }
      Certificate chosen = server.choose(name);
      if (chosen == null) {
        engine.refuse(
            name == null
                ? "the client sent no server name and there is no default certificate"
                : "unrecognized_name: no certificate for the server name " + name);
        return name == null ? SSL_AD_HANDSHAKE_FAILURE : OpenSsl.SSL_AD_UNRECOGNIZED_NAME;
      }
      MemorySegment current = (MemorySegment) OpenSsl.Lib.SSL_GET_SSL_CTX.invokeExact(ssl);
      if (!current.equals(chosen.ctx())) {
        MemorySegment set =
            (MemorySegment) OpenSsl.Lib.SSL_SET_SSL_CTX.invokeExact(ssl, chosen.ctx());
        if (set.equals(MemorySegment.NULL)) {
          return SSL_AD_INTERNAL_ERROR;
        }
      }
      // After the move: SSL_set_SSL_CTX resets a context id that was the old context's.
      byte[] id = server.sessionContext(name);
      try (Arena arena = Arena.ofConfined()) {
        if ((int)
                OpenSsl.Lib.SSL_SET_SESSION_ID_CONTEXT.invokeExact(
                    ssl, arena.allocateFrom(JAVA_BYTE, id), id.length)
            != 1) {
          return SSL_AD_INTERNAL_ERROR;
        }
      }
      engine.serverNameChosen(name, chosen.key().chain());
      return 0;
    }

    private static boolean sameName(String a, String b) {
      return a == null ? b == null : a.equalsIgnoreCase(b);
    }

    private static String describe(String name) {
      return name == null ? "no server name" : "the server name " + name;
    }

    private static int alert(MemorySegment alert, int description) {
      alert.reinterpret(JAVA_INT.byteSize()).set(JAVA_INT, 0, description);
      return OpenSsl.SSL_CLIENT_HELLO_ERROR;
    }

    /**
     * int (*)(SSL *s, int *al, void *arg): acknowledges the name the ClientHello callback already
     * chose a certificate for, so that OpenSSL keeps it in a new session.
     */
    private static int onServerName(MemorySegment ssl, MemorySegment alert, MemorySegment arg) {
      OpenSslEngine engine = engine();
      if (engine == null) {
        return OpenSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
      }
      if (engine.refusalAlert() != 0) { // BoringSSL: onSelectCertificate refused
        alert.reinterpret(JAVA_INT.byteSize()).set(JAVA_INT, 0, engine.refusalAlert());
        return OpenSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
      }
      return OpenSsl.SSL_TLSEXT_ERR_OK;
    }

    /**
     * int (*)(SSL *s, void *arg): staples the OCSP response held for the certificate of the
     * connection's context (the one SNI chose), in a copy the library owns and frees; none held
     * sends no staple (NOACK) and the handshake goes on.
     */
    private static int onStatusRequest(MemorySegment ssl, MemorySegment arg) {
      try {
        OpenSslEngine engine = engine();
        if (engine == null) {
          return OpenSsl.SSL_TLSEXT_ERR_NOACK;
        }
        MemorySegment ctx = (MemorySegment) OpenSsl.Lib.SSL_GET_SSL_CTX.invokeExact(ssl);
        Certificate certificate =
            ((OpenSslServerContext) engine.owner()).byContext.get(ctx.address());
        byte[] response =
            certificate == null || certificate.ocsp() == null ? null : certificate.ocsp().get();
        if (response == null || response.length == 0) {
          return OpenSsl.SSL_TLSEXT_ERR_NOACK;
        }
        if (!LibraryCalls.staple(ssl, response, ALLOCATED_IN)) {
          return OpenSsl.SSL_TLSEXT_ERR_NOACK;
        }
        return OpenSsl.SSL_TLSEXT_ERR_OK;
      } catch (Throwable e) {
        return OpenSsl.SSL_TLSEXT_ERR_NOACK;
      }
    }

    /**
     * int (*)(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
     * unsigned int inlen, void *arg): the server's most preferred protocol the client offers; none
     * in common is a no_application_protocol alert, as on the JDK engine.
     */
    private static int onAlpn(
        MemorySegment ssl,
        MemorySegment out,
        MemorySegment outLength,
        MemorySegment in,
        int inLength,
        MemorySegment arg) {
      try {
        OpenSslEngine engine = engine();
        if (engine == null) {
          return OpenSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
        }
        byte[] ours = ((OpenSslServerContext) engine.owner()).alpn;
        MemorySegment offered = in.reinterpret(inLength);
        for (int i = 0; i < ours.length; i += 1 + (ours[i] & 0xff)) {
          int length = ours[i] & 0xff;
          for (int j = 0; j < inLength; j += 1 + (offered.get(JAVA_BYTE, j) & 0xff)) {
            int theirs = offered.get(JAVA_BYTE, j) & 0xff;
            if (theirs == length
                && j + 1 + length <= inLength
                && MemorySegment.mismatch(
                        offered,
                        j + 1,
                        j + 1 + length,
                        MemorySegment.ofArray(ours),
                        i + 1,
                        i + 1 + length)
                    == -1) {
              out.reinterpret(ADDRESS.byteSize()).set(ADDRESS, 0, offered.asSlice(j + 1));
              outLength.reinterpret(1).set(JAVA_BYTE, 0, (byte) length);
              return OpenSsl.SSL_TLSEXT_ERR_OK;
            }
          }
        }
        engine.refuse(
            "no_application_protocol: the client offers none of the server's ALPN protocols");
        return OpenSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
      } catch (Throwable e) {
        return OpenSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
      }
    }
  }
}
