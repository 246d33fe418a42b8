package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * The functions of Debian's OpenSSL 3 (libssl.so.3, libcrypto.so.3) this engine calls, as method
 * handles, and its error queue turned into exceptions. Loading it is {@link #unavailableReason}'s
 * job: nothing here links until then.
 */
@SuppressWarnings("restricted") // native calls are this package's job
public final class OpenSsl {
  private OpenSsl() {}

  // ---- constants (ssl.h, tls1.h, bio.h) ----
  static final int SSL_ERROR_SSL = 1;
  static final int SSL_ERROR_WANT_READ = 2;
  static final int SSL_ERROR_WANT_WRITE = 3;
  static final int SSL_ERROR_SYSCALL = 5;
  static final int SSL_ERROR_ZERO_RETURN = 6;
  static final long SSL_OP_NO_COMPRESSION = 1L << 17;
  static final long SSL_OP_CIPHER_SERVER_PREFERENCE = 1L << 22;
  static final long SSL_OP_NO_RENEGOTIATION = 1L << 30;
  static final long SSL_OP_NO_TICKET = 1L << 14;
  static final long SSL_MODE_RELEASE_BUFFERS = 0x10;
  static final int SSL_CTRL_MODE = 33;
  static final int SSL_CTRL_SET_SESS_CACHE_SIZE = 42;
  static final int SSL_CTRL_SET_SESS_CACHE_MODE = 44;
  static final long SSL_SESS_CACHE_CLIENT = 0x0001;
  static final long SSL_SESS_CACHE_NO_INTERNAL_STORE = 0x0200;
  static final int SSL_CTRL_GET_SESS_CACHE_SIZE = 43;
  static final int SSL_CTRL_SET_TLSEXT_SERVERNAME_CB = 53;
  static final int SSL_CTRL_SET_TLSEXT_HOSTNAME = 55;
  static final int SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB = 63;
  static final int SSL_CTRL_SET_TLSEXT_STATUS_REQ_OCSP_RESP = 71;
  static final int SSL_CTRL_CHAIN_CERT = 89;
  static final int SSL_CTRL_SET_GROUPS_LIST = 92;
  static final int SSL_CTRL_SET_MIN_PROTO_VERSION = 123;
  static final int SSL_CTRL_SET_MAX_PROTO_VERSION = 124;
  static final int SSL_CTRL_SET_DH_AUTO = 118;
  static final int SSL_VERIFY_PEER = 0x01;
  static final int SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 0x02;
  static final int SSL_TLSEXT_ERR_OK = 0;
  static final int SSL_TLSEXT_ERR_ALERT_FATAL = 2;
  static final int SSL_TLSEXT_ERR_NOACK = 3;
  static final int SSL_AD_DECODE_ERROR = 50;
  static final int SSL_AD_UNRECOGNIZED_NAME = 112;
  static final int SSL_CLIENT_HELLO_SUCCESS = 1;
  static final int SSL_CLIENT_HELLO_ERROR = 0;
  static final int TLSEXT_TYPE_SERVER_NAME = 0;
  static final int TLSEXT_NAMETYPE_HOST_NAME = 0;
  static final int SSL_AD_NO_APPLICATION_PROTOCOL = 120;
  static final int TLS1_2_VERSION = 0x0303;
  static final int TLS1_3_VERSION = 0x0304;
  static final int BIO_TYPE_SOURCE_SINK = 0x0400;
  static final int BIO_CTRL_FLUSH = 11;
  static final int BIO_FLAGS_READ = 0x01;
  static final int BIO_FLAGS_SHOULD_RETRY = 0x08;

  /**
   * The libraries loaded (a name the dynamic linker looks up, or a path): another OpenSSL 3 build
   * with {@code -Dsluice.tls.openssl.libssl=PATH -Dsluice.tls.openssl.libcrypto=PATH}.
   */
  static final String LIBSSL = System.getProperty("sluice.tls.openssl.libssl", "libssl.so.3");

  static final String LIBCRYPTO =
      System.getProperty("sluice.tls.openssl.libcrypto", "libcrypto.so.3");

  private static volatile String unavailable;
  private static volatile boolean checked;

  /**
   * Why the OpenSSL engine cannot run in this JVM (libssl.so.3 missing, not OpenSSL 3, native
   * access not enabled, a function that does not link), or null when it can.
   */
  public static String unavailableReason() {
    if (!checked) {
      synchronized (OpenSsl.class) {
        if (!checked) {
          unavailable = probe();
          checked = true;
        }
      }
    }
    return unavailable;
  }

  /** Whether the OpenSSL engine can run in this JVM. */
  public static boolean isAvailable() {
    return unavailableReason() == null;
  }

  private static String probe() {
    if (!OpenSsl.class.getModule().isNativeAccessEnabled()) {
      return "native access is not enabled (start the JVM with --enable-native-access="
          + (OpenSsl.class.getModule().isNamed() ? "dev.sluice.core" : "ALL-UNNAMED")
          + ")";
    }
    try {
      long version = Lib.versionNumber();
      if (version >>> 28 != 3) {
        return LIBSSL + " is OpenSSL version " + Long.toHexString(version) + ", not 3";
      }
      CallbackBio.method(); // links the upcalls too
      return null;
    } catch (ExceptionInInitializerError e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return "cannot load " + LIBSSL + ": " + cause.getMessage();
    } catch (Throwable e) {
      return "cannot load " + LIBSSL + ": " + e;
    }
  }

  /** The library's version text, e.g. "OpenSSL 3.0.15 3 Sep 2024"; null when unavailable. */
  public static String version() {
    return isAvailable() ? Lib.versionText() : null;
  }

  /** The handles, linked on first use. */
  static final class Lib {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup SYMBOLS =
        SymbolLookup.libraryLookup(LIBSSL, Arena.global())
            .or(SymbolLookup.libraryLookup(LIBCRYPTO, Arena.global()));

    private Lib() {}

    private static MethodHandle h(String name, FunctionDescriptor descriptor) {
      return LINKER.downcallHandle(SYMBOLS.findOrThrow(name), descriptor);
    }

    private static FunctionDescriptor f(
        java.lang.foreign.MemoryLayout result, java.lang.foreign.MemoryLayout... args) {
      return FunctionDescriptor.of(result, args);
    }

    private static FunctionDescriptor v(java.lang.foreign.MemoryLayout... args) {
      return FunctionDescriptor.ofVoid(args);
    }

    // crypto
    static final MethodHandle OPENSSL_VERSION_NUM = h("OpenSSL_version_num", f(JAVA_LONG));
    static final MethodHandle OPENSSL_VERSION = h("OpenSSL_version", f(ADDRESS, JAVA_INT));
    static final MethodHandle CRYPTO_MALLOC =
        h("CRYPTO_malloc", f(ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT));
    static final MethodHandle CRYPTO_FREE = h("CRYPTO_free", v(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle ERR_GET_ERROR = h("ERR_get_error", f(JAVA_LONG));
    static final MethodHandle ERR_CLEAR_ERROR = h("ERR_clear_error", v());
    static final MethodHandle ERR_ERROR_STRING_N =
        h("ERR_error_string_n", v(JAVA_LONG, ADDRESS, JAVA_LONG));
    static final MethodHandle D2I_X509 = h("d2i_X509", f(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle I2D_X509 = h("i2d_X509", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle X509_FREE = h("X509_free", v(ADDRESS));
    static final MethodHandle D2I_AUTO_PRIVATE_KEY =
        h("d2i_AutoPrivateKey", f(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle EVP_PKEY_FREE = h("EVP_PKEY_free", v(ADDRESS));
    static final MethodHandle X509_STORE_ADD_CERT =
        h("X509_STORE_add_cert", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle X509_VERIFY_PARAM_SET1_IP_ASC =
        h("X509_VERIFY_PARAM_set1_ip_asc", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle X509_VERIFY_CERT_ERROR_STRING =
        h("X509_verify_cert_error_string", f(ADDRESS, JAVA_LONG));
    static final MethodHandle SK_NUM = h("OPENSSL_sk_num", f(JAVA_INT, ADDRESS));
    static final MethodHandle SK_VALUE = h("OPENSSL_sk_value", f(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle BIO_GET_NEW_INDEX = h("BIO_get_new_index", f(JAVA_INT));
    static final MethodHandle BIO_METH_NEW = h("BIO_meth_new", f(ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle BIO_METH_SET_WRITE =
        h("BIO_meth_set_write", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BIO_METH_SET_READ =
        h("BIO_meth_set_read", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BIO_METH_SET_CTRL =
        h("BIO_meth_set_ctrl", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BIO_NEW = h("BIO_new", f(ADDRESS, ADDRESS));
    static final MethodHandle BIO_SET_INIT = h("BIO_set_init", v(ADDRESS, JAVA_INT));
    static final MethodHandle BIO_SET_FLAGS = h("BIO_set_flags", v(ADDRESS, JAVA_INT));
    static final MethodHandle BIO_CLEAR_FLAGS = h("BIO_clear_flags", v(ADDRESS, JAVA_INT));

    static final MethodHandle RAND_BYTES = h("RAND_bytes", f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle EVP_AES_128_CBC = h("EVP_aes_128_cbc", f(ADDRESS));
    static final MethodHandle EVP_AES_256_CBC = h("EVP_aes_256_cbc", f(ADDRESS));
    static final MethodHandle EVP_ENCRYPT_INIT_EX =
        h("EVP_EncryptInit_ex", f(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle EVP_DECRYPT_INIT_EX =
        h("EVP_DecryptInit_ex", f(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle EVP_MAC_CTX_SET_PARAMS =
        h("EVP_MAC_CTX_set_params", f(JAVA_INT, ADDRESS, ADDRESS));

    // ssl: contexts
    static final MethodHandle SSL_CTX_SET_TLSEXT_TICKET_KEY_EVP_CB =
        h("SSL_CTX_set_tlsext_ticket_key_evp_cb", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle TLS_SERVER_METHOD = h("TLS_server_method", f(ADDRESS));
    static final MethodHandle TLS_CLIENT_METHOD = h("TLS_client_method", f(ADDRESS));
    static final MethodHandle SSL_CTX_NEW = h("SSL_CTX_new", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_FREE = h("SSL_CTX_free", v(ADDRESS));
    static final MethodHandle SSL_CTX_SET_OPTIONS =
        h("SSL_CTX_set_options", f(JAVA_LONG, ADDRESS, JAVA_LONG));
    static final MethodHandle SSL_CTX_CTRL =
        h("SSL_CTX_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_CTX_CALLBACK_CTRL =
        h("SSL_CTX_callback_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTX_SET_CIPHER_LIST =
        h("SSL_CTX_set_cipher_list", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_CIPHERSUITES =
        h("SSL_CTX_set_ciphersuites", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_GET_CIPHERS = h("SSL_CTX_get_ciphers", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_USE_CERTIFICATE =
        h("SSL_CTX_use_certificate", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_USE_PRIVATE_KEY =
        h("SSL_CTX_use_PrivateKey", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_CHECK_PRIVATE_KEY =
        h("SSL_CTX_check_private_key", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTX_GET_CERT_STORE =
        h("SSL_CTX_get_cert_store", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_VERIFY =
        h("SSL_CTX_set_verify", v(ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTX_ADD_CLIENT_CA =
        h("SSL_CTX_add_client_CA", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_ALPN_SELECT_CB =
        h("SSL_CTX_set_alpn_select_cb", v(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_CLIENT_HELLO_CB =
        h("SSL_CTX_set_client_hello_cb", v(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_SESSION_ID_CONTEXT =
        h("SSL_CTX_set_session_id_context", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CTX_SET_TIMEOUT =
        h("SSL_CTX_set_timeout", f(JAVA_LONG, ADDRESS, JAVA_LONG));
    static final MethodHandle SSL_CTX_GET_TIMEOUT = h("SSL_CTX_get_timeout", f(JAVA_LONG, ADDRESS));

    // ssl: connections
    static final MethodHandle SSL_NEW = h("SSL_new", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_FREE = h("SSL_free", v(ADDRESS));
    static final MethodHandle SSL_SET_BIO = h("SSL_set_bio", v(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_ACCEPT_STATE = h("SSL_set_accept_state", v(ADDRESS));
    static final MethodHandle SSL_SET_CONNECT_STATE = h("SSL_set_connect_state", v(ADDRESS));
    static final MethodHandle SSL_DO_HANDSHAKE = h("SSL_do_handshake", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_READ = h("SSL_read", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_WRITE = h("SSL_write", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_GET_ERROR = h("SSL_get_error", f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_SHUTDOWN = h("SSL_shutdown", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTRL =
        h("SSL_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_GET_SERVERNAME =
        h("SSL_get_servername", f(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CLIENT_HELLO_GET0_EXT =
        h("SSL_client_hello_get0_ext", f(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_SESSION_ID_CONTEXT =
        h("SSL_set_session_id_context", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_SET_SSL_CTX = h("SSL_set_SSL_CTX", f(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET_SSL_CTX = h("SSL_get_SSL_CTX", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET_VERSION = h("SSL_get_version", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET_CURRENT_CIPHER =
        h("SSL_get_current_cipher", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CIPHER_STANDARD_NAME =
        h("SSL_CIPHER_standard_name", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CIPHER_GET_NAME = h("SSL_CIPHER_get_name", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET0_ALPN_SELECTED =
        h("SSL_get0_alpn_selected", v(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_ALPN_PROTOS =
        h("SSL_set_alpn_protos", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_GET1_PEER_CERTIFICATE =
        h("SSL_get1_peer_certificate", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET_PEER_CERT_CHAIN =
        h("SSL_get_peer_cert_chain", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SESSION_REUSED = h("SSL_session_reused", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_GET_SESSION = h("SSL_get_session", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_SESSION = h("SSL_set_session", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SESSION_FREE = h("SSL_SESSION_free", v(ADDRESS));
    static final MethodHandle SSL_SESSION_IS_RESUMABLE =
        h("SSL_SESSION_is_resumable", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_SESSION_GET_PROTOCOL_VERSION =
        h("SSL_SESSION_get_protocol_version", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTX_SESS_SET_NEW_CB =
        h("SSL_CTX_sess_set_new_cb", v(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SESSION_GET_TIME =
        h("SSL_SESSION_get_time", f(JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_SESSION_GET_ID =
        h("SSL_SESSION_get_id", f(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET1_HOST = h("SSL_set1_host", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET0_PARAM = h("SSL_get0_param", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_VERIFY = h("SSL_set_verify", v(ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SSL_GET_VERIFY_RESULT =
        h("SSL_get_verify_result", f(JAVA_LONG, ADDRESS));

    static long versionNumber() throws Throwable {
      return (long) OPENSSL_VERSION_NUM.invokeExact();
    }

    static String versionText() {
      try {
        return string((MemorySegment) OPENSSL_VERSION.invokeExact(0));
      } catch (Throwable e) {
        throw rethrow(e);
      }
    }
  }

  // ---- helpers ----

  /** A NUL-terminated C string as Java text; null for NULL. */
  static String string(MemorySegment pointer) {
    if (pointer.equals(MemorySegment.NULL)) {
      return null;
    }
    return pointer.reinterpret(Long.MAX_VALUE).getString(0);
  }

  /** An unchecked exception for a call that threw (the handles throw nothing but errors). */
  static RuntimeException rethrow(Throwable e) {
    if (e instanceof RuntimeException r) {
      throw r;
    }
    if (e instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(e);
  }

  /** Empties this thread's error queue, so the next failure reports only its own errors. */
  static void clearErrors() {
    try {
      Lib.ERR_CLEAR_ERROR.invokeExact();
    } catch (Throwable e) {
      throw rethrow(e);
    }
  }

  /** This thread's queued errors, oldest first, emptying the queue. */
  static List<String> takeErrors() {
    List<String> errors = new ArrayList<>();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment text = arena.allocate(256);
      while (true) {
        long code = (long) Lib.ERR_GET_ERROR.invokeExact();
        if (code == 0) {
          return errors;
        }
        Lib.ERR_ERROR_STRING_N.invokeExact(code, text, 256L);
        errors.add(text.getString(0));
      }
    } catch (Throwable e) {
      throw rethrow(e);
    }
  }

  /** "{@code what}: {@code errors}", or {@code what} alone when the queue is empty. */
  static String describe(String what) {
    List<String> errors = takeErrors();
    return errors.isEmpty() ? what : what + ": " + String.join("; ", errors);
  }

  /** An exception for a failed call, carrying the error queue. */
  static SSLException failure(String what, boolean handshake) {
    String message = describe(what);
    return handshake ? new SSLHandshakeException(message) : new SSLException(message);
  }

  /** Fails with the queued errors when a setup call returned {@code result != 1}. */
  static void check(int result, String what) throws java.security.GeneralSecurityException {
    if (result != 1) {
      throw new java.security.GeneralSecurityException(describe(what));
    }
  }
}
