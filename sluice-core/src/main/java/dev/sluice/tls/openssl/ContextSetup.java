package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.sluice.tls.CipherPolicy;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TrustMaterial;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the server and client contexts share: an SSL_CTX made from the settings both configs have
 * (protocol versions, suites and groups in IANA names, certificates, trust), with the options every
 * Sluice context gets.
 */
final class ContextSetup {
  private ContextSetup() {}

  /** OpenSSL's names of the TLS 1.2 suites it has, by IANA name. */
  private static volatile Map<String, String> openSslNames;

  /** A new SSL_CTX for a server or client; free it with {@link #free} if setup fails. */
  static MemorySegment newContext(boolean server) throws GeneralSecurityException {
    try {
      MemorySegment method =
          server
              ? (MemorySegment) OpenSsl.Lib.TLS_SERVER_METHOD.invokeExact()
              : (MemorySegment) OpenSsl.Lib.TLS_CLIENT_METHOD.invokeExact();
      OpenSsl.clearErrors();
      MemorySegment ctx = (MemorySegment) OpenSsl.Lib.SSL_CTX_NEW.invokeExact(method);
      if (ctx.equals(MemorySegment.NULL)) {
        throw new GeneralSecurityException(OpenSsl.describe("SSL_CTX_new failed"));
      }
      // BoringSSL never compresses, and renegotiates only as a client asked to: no options.
      long options =
          OpenSsl.BORING ? 0 : OpenSsl.SSL_OP_NO_COMPRESSION | OpenSsl.SSL_OP_NO_RENEGOTIATION;
      if (server) {
        options |= OpenSsl.SSL_OP_CIPHER_SERVER_PREFERENCE;
      }
      long ignored = (long) OpenSsl.Lib.SSL_CTX_SET_OPTIONS.invokeExact(ctx, options);
      LibraryCalls.setMode(ctx, modeBits());
      if (server) {
        // DHE suites (profile old) take parameters that match the certificate's strength.
        LibraryCalls.setDhAuto(ctx);
      }
      return ctx;
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /**
   * SSL_MODE_RELEASE_BUFFERS: an idle connection holds no OpenSSL record buffer. The property
   * {@code sluice.tls.openssl.keepBuffers=true} turns it off, to measure what it saves.
   */
  static long modeBits() {
    return Boolean.getBoolean("sluice.tls.openssl.keepBuffers")
        ? 0
        : OpenSsl.SSL_MODE_RELEASE_BUFFERS;
  }

  static void free(MemorySegment ctx) {
    try {
      OpenSsl.Lib.SSL_CTX_FREE.invokeExact(ctx);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /** Protocol versions, suites and groups, refusing what OpenSSL does not have. */
  static void applyCiphers(MemorySegment ctx, List<String> protocols, CipherPolicy policy)
      throws GeneralSecurityException {
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (String protocol : protocols) {
      int version =
          switch (protocol) {
            case "TLSv1.3" -> OpenSsl.TLS1_3_VERSION;
            case "TLSv1.2" -> OpenSsl.TLS1_2_VERSION;
            default ->
                throw new GeneralSecurityException(
                    "protocol " + protocol + " is not offered by the OpenSSL engine");
          };
      min = Math.min(min, version);
      max = Math.max(max, version);
    }
    try {
      if (!LibraryCalls.setProtocolVersions(ctx, min, max)) {
        throw new GeneralSecurityException(OpenSsl.describe("cannot set the protocol versions"));
      }
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
    boolean tls12 = min == OpenSsl.TLS1_2_VERSION;
    boolean tls13 = max == OpenSsl.TLS1_3_VERSION;
    if (tls13 && policy.tls13Suites().isEmpty()) {
      throw new GeneralSecurityException("TLSv1.3 is enabled but no TLS 1.3 cipher suite is");
    }
    if (tls12 && policy.tls12Suites().isEmpty()) {
      throw new GeneralSecurityException(
          "TLS " + String.join(", ", protocols) + " enabled but no TLS 1.2 cipher suite is");
    }
    try (Arena arena = Arena.ofConfined()) {
      if (tls12) {
        Map<String, String> names = openSslNames();
        List<String> list = new ArrayList<>();
        for (String suite : policy.tls12Suites()) {
          String name = names.get(suite.startsWith("SSL_") ? "TLS_" + suite.substring(4) : suite);
          if (name == null) {
            throw new GeneralSecurityException(
                "cipher suite " + suite + " is not supported by this " + OpenSsl.libraryName());
          }
          list.add(name);
        }
        OpenSsl.clearErrors();
        OpenSsl.check(
            (int)
                OpenSsl.Lib.SSL_CTX_SET_CIPHER_LIST.invokeExact(
                    ctx, arena.allocateFrom(String.join(":", list))),
            "cannot set the TLS 1.2 cipher suites");
      }
      if (tls13 && OpenSsl.BORING) {
        // BoringSSL's TLS 1.3 suites are fixed: refuse a policy that asks for fewer or others.
        List<String> fixed =
            List.of(
                "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
        if (!new java.util.HashSet<>(policy.tls13Suites()).equals(new java.util.HashSet<>(fixed))) {
          throw new GeneralSecurityException(
              "BoringSSL's TLS 1.3 cipher suites are fixed ("
                  + String.join(", ", fixed)
                  + "): it cannot offer only "
                  + policy.tls13Suites());
        }
      } else if (tls13) {
        OpenSsl.check(
            (int)
                OpenSsl.Lib.SSL_CTX_SET_CIPHERSUITES.invokeExact(
                    ctx, arena.allocateFrom(String.join(":", policy.tls13Suites()))),
            "cannot set the TLS 1.3 cipher suites " + policy.tls13Suites());
      }
      if (!policy.groups().isEmpty()) {
        List<String> groups = policy.groups().stream().map(ContextSetup::groupName).toList();
        if (!LibraryCalls.setGroups(ctx, arena.allocateFrom(String.join(":", groups)))) {
          throw new GeneralSecurityException(
              OpenSsl.describe("OpenSSL does not take the groups " + policy.groups()));
        }
      }
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private static String groupName(String iana) {
    return switch (iana.toLowerCase(Locale.ROOT)) {
      case "x25519" -> "X25519";
      case "x448" -> "X448";
      case "secp256r1" -> "P-256";
      case "secp384r1" -> "P-384";
      case "secp521r1" -> "P-521";
      default -> iana;
    };
  }

  private static Map<String, String> openSslNames() throws Throwable {
    Map<String, String> names = openSslNames;
    if (names != null) {
      return names;
    }
    MemorySegment ctx = newContext(true);
    try (Arena arena = Arena.ofConfined()) {
      int listed =
          (int)
              OpenSsl.Lib.SSL_CTX_SET_CIPHER_LIST.invokeExact(
                  ctx,
                  arena.allocateFrom(OpenSsl.BORING ? "ALL" : "ALL:COMPLEMENTOFALL:@SECLEVEL=0"));
      if (listed != 1) {
        throw new GeneralSecurityException(OpenSsl.describe("cannot list OpenSSL's suites"));
      }
      MemorySegment stack = (MemorySegment) OpenSsl.Lib.SSL_CTX_GET_CIPHERS.invokeExact(ctx);
      int count = (int) OpenSsl.Lib.SK_NUM.invokeExact(stack);
      names = new HashMap<>();
      for (int i = 0; i < count; i++) {
        MemorySegment cipher = (MemorySegment) OpenSsl.Lib.SK_VALUE.invokeExact(stack, i);
        String standard =
            OpenSsl.string(
                (MemorySegment) OpenSsl.Lib.SSL_CIPHER_STANDARD_NAME.invokeExact(cipher));
        String own =
            OpenSsl.string((MemorySegment) OpenSsl.Lib.SSL_CIPHER_GET_NAME.invokeExact(cipher));
        if (standard != null && own != null) {
          names.put(standard, own);
        }
      }
    } finally {
      free(ctx);
      OpenSsl.clearErrors();
    }
    openSslNames = Map.copyOf(names);
    return openSslNames;
  }

  /** Presents {@code key}: its certificate, the rest of its chain, its private key. */
  static void useKey(MemorySegment ctx, KeyMaterial key) throws GeneralSecurityException {
    try (Arena arena = Arena.ofConfined()) {
      List<X509Certificate> chain = key.chain();
      MemorySegment leaf = x509(arena, chain.get(0));
      try {
        OpenSsl.check(
            (int) OpenSsl.Lib.SSL_CTX_USE_CERTIFICATE.invokeExact(ctx, leaf),
            "OpenSSL refuses the certificate " + key);
      } finally {
        OpenSsl.Lib.X509_FREE.invokeExact(leaf);
      }
      for (X509Certificate intermediate : chain.subList(1, chain.size())) {
        MemorySegment x = x509(arena, intermediate);
        try {
          // SSL_CTX_add1_chain_cert: takes its own reference.
          if (!LibraryCalls.addChainCertificate(ctx, x)) {
            throw new GeneralSecurityException(
                OpenSsl.describe("OpenSSL refuses a chain certificate of " + key));
          }
        } finally {
          OpenSsl.Lib.X509_FREE.invokeExact(x);
        }
      }
      byte[] pkcs8 = key.key().getEncoded();
      if (pkcs8 == null) {
        throw new GeneralSecurityException("the private key of " + key + " cannot be exported");
      }
      MemorySegment der = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, pkcs8);
      MemorySegment cursor = arena.allocate(ADDRESS);
      cursor.set(ADDRESS, 0, der);
      MemorySegment pkey =
          (MemorySegment)
              OpenSsl.Lib.D2I_AUTO_PRIVATE_KEY.invokeExact(
                  MemorySegment.NULL, cursor, (long) pkcs8.length);
      java.util.Arrays.fill(pkcs8, (byte) 0);
      der.fill((byte) 0);
      if (pkey.equals(MemorySegment.NULL)) {
        throw new GeneralSecurityException(
            OpenSsl.describe("OpenSSL cannot read the private key of " + key));
      }
      try {
        OpenSsl.check(
            (int) OpenSsl.Lib.SSL_CTX_USE_PRIVATE_KEY.invokeExact(ctx, pkey),
            "OpenSSL refuses the private key of " + key);
      } finally {
        OpenSsl.Lib.EVP_PKEY_FREE.invokeExact(pkey);
      }
      OpenSsl.check(
          (int) OpenSsl.Lib.SSL_CTX_CHECK_PRIVATE_KEY.invokeExact(ctx),
          "the private key does not match the certificate of " + key);
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /**
   * Verifies peers against {@code trust}, or when null against the JVM's default authorities (its
   * cacerts, or what {@code javax.net.ssl.trustStore} names), as the JDK engine does: never the
   * system's OpenSSL paths, which the JVM's settings do not govern. {@code advertise} also names
   * the authorities in a server's certificate request.
   */
  static void trust(MemorySegment ctx, TrustMaterial trust, int verifyMode, boolean advertise)
      throws GeneralSecurityException {
    List<X509Certificate> authorities =
        trust != null ? trust.authorities() : jvmDefaultAuthorities();
    String source = trust != null ? trust.toString() : "the JVM's default trust";
    try (Arena arena = Arena.ofConfined()) {
      OpenSsl.Lib.SSL_CTX_SET_VERIFY.invokeExact(ctx, verifyMode, MemorySegment.NULL);
      MemorySegment store = (MemorySegment) OpenSsl.Lib.SSL_CTX_GET_CERT_STORE.invokeExact(ctx);
      for (X509Certificate authority : authorities) {
        MemorySegment x = x509(arena, authority);
        try {
          OpenSsl.check(
              (int) OpenSsl.Lib.X509_STORE_ADD_CERT.invokeExact(store, x),
              "OpenSSL refuses a trusted certificate of " + source);
          if (advertise) {
            OpenSsl.check(
                (int) OpenSsl.Lib.SSL_CTX_ADD_CLIENT_CA.invokeExact(ctx, x),
                "OpenSSL refuses a client CA of " + source);
          }
        } finally {
          OpenSsl.Lib.X509_FREE.invokeExact(x);
        }
      }
    } catch (GeneralSecurityException e) {
      throw e;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  /** The authorities the JVM's default trust manager accepts. */
  private static List<X509Certificate> jvmDefaultAuthorities() throws GeneralSecurityException {
    javax.net.ssl.TrustManagerFactory factory =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    factory.init((java.security.KeyStore) null);
    for (javax.net.ssl.TrustManager manager : factory.getTrustManagers()) {
      if (manager instanceof javax.net.ssl.X509TrustManager x509) {
        return List.of(x509.getAcceptedIssuers());
      }
    }
    throw new GeneralSecurityException("the JVM has no default X.509 trust manager");
  }

  /** An OpenSSL X509 (free it) from a Java certificate. */
  private static MemorySegment x509(Arena arena, X509Certificate certificate) throws Throwable {
    byte[] encoded;
    try {
      encoded = certificate.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new GeneralSecurityException(
          "cannot encode " + certificate.getSubjectX500Principal(), e);
    }
    MemorySegment der = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, encoded);
    MemorySegment cursor = arena.allocate(ADDRESS);
    cursor.set(ADDRESS, 0, der);
    MemorySegment x =
        (MemorySegment)
            OpenSsl.Lib.D2I_X509.invokeExact(MemorySegment.NULL, cursor, (long) encoded.length);
    if (x.equals(MemorySegment.NULL)) {
      throw new GeneralSecurityException(
          OpenSsl.describe("OpenSSL cannot read " + certificate.getSubjectX500Principal()));
    }
    return x;
  }

  /** ALPN's wire form: each name preceded by its length. */
  static byte[] alpnWire(List<String> protocols) {
    java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
    for (String protocol : protocols) {
      byte[] name = protocol.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      if (name.length == 0 || name.length > 255) {
        throw new IllegalArgumentException("an ALPN protocol name has 1 to 255 bytes: " + protocol);
      }
      wire.write(name.length);
      wire.writeBytes(name);
    }
    return wire.toByteArray();
  }
}
