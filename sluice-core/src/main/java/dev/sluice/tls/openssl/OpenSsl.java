package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * The functions of the library this engine calls, as method handles, and its error queue turned
 * into exceptions. The library is Debian's OpenSSL 3 (libssl.so.3, libcrypto.so.3), or BoringSSL
 * (Debian's {@code android-libboringssl}) when {@value #LIBRARY_PROPERTY} says so: one per process,
 * since the handles are constants. Where the two differ (BoringSSL has functions for OpenSSL's
 * {@code SSL_ctrl} macros, and other widths), {@link LibraryCalls} hides it. Loading is {@link
 * #unavailableReason}'s job: nothing here links until then.
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

  /** The libraries the engine can run on. */
  public enum Library {
    /** OpenSSL 3 (libssl.so.3): the default. */
    OPENSSL("libssl.so.3", "libcrypto.so.3"),
    /**
     * BoringSSL as Debian packages it for Android's tools ({@code android-libboringssl}), under its
     * own directory and soname, beside OpenSSL: a quarter of OpenSSL 3's memory per connection and
     * wider AES-GCM code. Its TLS 1.3 suites are fixed and it has no DHE.
     */
    BORINGSSL(androidDirectory() + "libssl.so.0", androidDirectory() + "libcrypto.so.0");

    private final String libssl;
    private final String libcrypto;

    Library(String libssl, String libcrypto) {
      this.libssl = libssl;
      this.libcrypto = libcrypto;
    }

    /** The name used in configuration and output: {@code openssl}, {@code boringssl}. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The library named {@code value} ({@code openssl} or {@code boringssl}, any case).
     *
     * @throws IllegalArgumentException for another name
     */
    public static Library parse(String value) {
      return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "openssl" -> OPENSSL;
        case "boringssl" -> BORINGSSL;
        default ->
            throw new IllegalArgumentException(
                "unknown TLS library '" + value + "' (expected openssl or boringssl)");
      };
    }

    private static String androidDirectory() {
      // Debian's multiarch names for the JVM's os.arch.
      String arch =
          switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> "x86_64-linux-gnu";
            case "aarch64" -> "aarch64-linux-gnu";
            case "x86", "i386", "i486", "i586", "i686" -> "i386-linux-gnu";
            case "arm" -> "arm-linux-gnueabihf";
            case "ppc64le" -> "powerpc64le-linux-gnu";
            default -> System.getProperty("os.arch", "") + "-linux-gnu"; // s390x, riscv64
          };
      return "/usr/lib/" + arch + "/android/";
    }
  }

  /**
   * The property (else the environment variable {@code SLUICE_TLS_LIBRARY}) that chooses the
   * library, read once per process: {@code openssl} (the default) or {@code boringssl}.
   */
  public static final String LIBRARY_PROPERTY = "sluice.tls.library";

  /** The library this process runs the engine on. */
  static final Library LIBRARY = chooseLibrary();

  /**
   * Whether it is BoringSSL, whose calls differ from OpenSSL 3's where {@link LibraryCalls} says.
   */
  static final boolean BORING = LIBRARY == Library.BORINGSSL;

  /**
   * The files loaded (a name the dynamic linker looks up, or a path): another build of the chosen
   * library with {@code -Dsluice.tls.openssl.libssl=PATH -Dsluice.tls.openssl.libcrypto=PATH}.
   */
  static final String LIBSSL = System.getProperty("sluice.tls.openssl.libssl", library().libssl);

  static final String LIBCRYPTO =
      System.getProperty("sluice.tls.openssl.libcrypto", library().libcrypto);

  private static Library chooseLibrary() {
    String value = System.getProperty(LIBRARY_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv("SLUICE_TLS_LIBRARY");
    }
    if (value == null || value.isBlank()) {
      return Library.OPENSSL;
    }
    try {
      return Library.parse(value);
    } catch (IllegalArgumentException e) {
      // Said by unavailableReason(): a mistyped choice must not silently run another library.
      return null;
    }
  }

  /**
   * The library this process runs the engine on (chosen by {@value #LIBRARY_PROPERTY}); OpenSSL
   * when the choice names none, where {@link #unavailableReason} says why the engine cannot run.
   */
  public static Library library() {
    return LIBRARY == null ? Library.OPENSSL : LIBRARY;
  }

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
    if (LIBRARY == null) {
      String value = System.getProperty(LIBRARY_PROPERTY);
      return "unknown TLS library '"
          + (value == null || value.isBlank() ? System.getenv("SLUICE_TLS_LIBRARY") : value)
          + "' in "
          + LIBRARY_PROPERTY
          + " or SLUICE_TLS_LIBRARY (expected openssl or boringssl)";
    }
    if (!OpenSsl.class.getModule().isNativeAccessEnabled()) {
      return "native access is not enabled (start the JVM with --enable-native-access="
          + (OpenSsl.class.getModule().isNamed() ? "dev.sluice.core" : "ALL-UNNAMED")
          + ")";
    }
    try {
      long version = Lib.versionNumber();
      if (BORING) {
        if (!Lib.versionText().contains("BoringSSL")) {
          return LIBSSL + " is " + Lib.versionText() + ", not BoringSSL";
        }
      } else if (version >>> 28 != 3) {
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

  /**
   * Whether {@code session}, one of this engine's, was resumed rather than made by its handshake;
   * null for a session of another engine.
   */
  public static Boolean resumed(javax.net.ssl.SSLSession session) {
    return session instanceof OpenSslSession own ? own.resumed() : null;
  }

  /**
   * The library's version text, e.g. "OpenSSL 3.0.15 3 Sep 2024" or "BoringSSL"; null when
   * unavailable.
   */
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

    /** Integer.toUnsignedLong, for a uint32_t result read into a long. */
    private static final MethodHandle UNSIGNED = unsigned();

    private static MethodHandle unsigned() {
      try {
        return MethodHandles.publicLookup()
            .findStatic(
                Integer.class,
                "toUnsignedLong",
                java.lang.invoke.MethodType.methodType(long.class, int.class));
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private static MethodHandle h(String name, FunctionDescriptor descriptor) {
      return LINKER.downcallHandle(SYMBOLS.findOrThrow(name), descriptor);
    }

    /**
     * A function whose C types differ between the libraries (BoringSSL's {@code size_t} or {@code
     * uint32_t} for OpenSSL's {@code int} or {@code long}), called with the Java types of {@code
     * like}: arguments narrowed or widened to what the C function takes.
     */
    private static MethodHandle h(
        String name, FunctionDescriptor descriptor, FunctionDescriptor like) {
      return MethodHandles.explicitCastArguments(h(name, descriptor), like.toMethodType());
    }

    /** {@code openssl}'s function on OpenSSL 3, {@code boring}'s (same Java types) on BoringSSL. */
    private static MethodHandle either(
        String openssl, String boring, FunctionDescriptor descriptor, FunctionDescriptor boringC) {
      return BORING ? h(boring, boringC, descriptor) : h(openssl, descriptor);
    }

    /** A function only OpenSSL 3 has (null on BoringSSL). */
    private static MethodHandle openSslOnly(String name, FunctionDescriptor descriptor) {
      return BORING ? null : h(name, descriptor);
    }

    /** A function only BoringSSL has (null on OpenSSL 3). */
    private static MethodHandle boringOnly(String name, FunctionDescriptor descriptor) {
      return BORING ? h(name, descriptor) : null;
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
        openSslOnly("CRYPTO_malloc", f(ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT));
    static final MethodHandle CRYPTO_FREE =
        openSslOnly("CRYPTO_free", v(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle ERR_GET_ERROR =
        either("ERR_get_error", "ERR_get_error", f(JAVA_LONG), f(JAVA_INT));
    static final MethodHandle ERR_CLEAR_ERROR = h("ERR_clear_error", v());
    static final MethodHandle ERR_ERROR_STRING_N =
        either(
            "ERR_error_string_n",
            "ERR_error_string_n",
            v(JAVA_LONG, ADDRESS, JAVA_LONG),
            v(JAVA_INT, ADDRESS, JAVA_LONG));
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
    static final MethodHandle SK_NUM =
        either("OPENSSL_sk_num", "sk_num", f(JAVA_INT, ADDRESS), f(JAVA_LONG, ADDRESS));
    static final MethodHandle SK_VALUE =
        either(
            "OPENSSL_sk_value",
            "sk_value",
            f(ADDRESS, ADDRESS, JAVA_INT),
            f(ADDRESS, ADDRESS, JAVA_LONG));
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

    static final MethodHandle RAND_BYTES =
        either(
            "RAND_bytes",
            "RAND_bytes",
            f(JAVA_INT, ADDRESS, JAVA_INT),
            f(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle EVP_AES_128_CBC = h("EVP_aes_128_cbc", f(ADDRESS));
    static final MethodHandle EVP_AES_256_CBC = h("EVP_aes_256_cbc", f(ADDRESS));
    static final MethodHandle EVP_ENCRYPT_INIT_EX =
        h("EVP_EncryptInit_ex", f(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle EVP_DECRYPT_INIT_EX =
        h("EVP_DecryptInit_ex", f(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle EVP_MAC_CTX_SET_PARAMS =
        openSslOnly("EVP_MAC_CTX_set_params", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle HMAC_INIT_EX =
        boringOnly("HMAC_Init_ex", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    static final MethodHandle EVP_SHA256 = boringOnly("EVP_sha256", f(ADDRESS));

    // ssl: contexts
    /** OpenSSL 3's callback keys an EVP_MAC_CTX, BoringSSL's an HMAC_CTX: otherwise alike. */
    static final MethodHandle SSL_CTX_SET_TLSEXT_TICKET_KEY_CB =
        either(
            "SSL_CTX_set_tlsext_ticket_key_evp_cb",
            "SSL_CTX_set_tlsext_ticket_key_cb",
            f(JAVA_INT, ADDRESS, ADDRESS),
            f(JAVA_INT, ADDRESS, ADDRESS));

    static final MethodHandle TLS_SERVER_METHOD = h("TLS_server_method", f(ADDRESS));
    static final MethodHandle TLS_CLIENT_METHOD = h("TLS_client_method", f(ADDRESS));
    static final MethodHandle SSL_CTX_NEW = h("SSL_CTX_new", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_FREE = h("SSL_CTX_free", v(ADDRESS));
    static final MethodHandle SSL_CTX_SET_OPTIONS =
        either(
            "SSL_CTX_set_options",
            "SSL_CTX_set_options",
            f(JAVA_LONG, ADDRESS, JAVA_LONG),
            f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CTX_CTRL =
        openSslOnly("SSL_CTX_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_CTX_CALLBACK_CTRL =
        openSslOnly("SSL_CTX_callback_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SSL_CTX_SET_CIPHER_LIST =
        h("SSL_CTX_set_cipher_list", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_CIPHERSUITES =
        openSslOnly("SSL_CTX_set_ciphersuites", f(JAVA_INT, ADDRESS, ADDRESS));
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
        openSslOnly("SSL_CTX_set_client_hello_cb", v(ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_SESSION_ID_CONTEXT =
        either(
            "SSL_CTX_set_session_id_context",
            "SSL_CTX_set_session_id_context",
            f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
            f(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle SSL_CTX_SET_TIMEOUT =
        either(
            "SSL_CTX_set_timeout",
            "SSL_CTX_set_timeout",
            f(JAVA_LONG, ADDRESS, JAVA_LONG),
            f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CTX_GET_TIMEOUT =
        BORING // a uint32_t there, and "no limit" (100 years) is above Integer.MAX_VALUE
            ? MethodHandles.filterReturnValue(
                h("SSL_CTX_get_timeout", f(JAVA_INT, ADDRESS)), UNSIGNED)
            : h("SSL_CTX_get_timeout", f(JAVA_LONG, ADDRESS));

    // BoringSSL's functions for what OpenSSL 3 does through SSL_CTX_ctrl and SSL_ctrl
    static final MethodHandle SSL_CTX_SET_MODE =
        boringOnly("SSL_CTX_set_mode", f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CTX_SET_MIN_PROTO_VERSION =
        boringOnly("SSL_CTX_set_min_proto_version", f(JAVA_INT, ADDRESS, JAVA_SHORT));
    static final MethodHandle SSL_CTX_SET_MAX_PROTO_VERSION =
        boringOnly("SSL_CTX_set_max_proto_version", f(JAVA_INT, ADDRESS, JAVA_SHORT));
    static final MethodHandle SSL_CTX_SET1_CURVES_LIST =
        boringOnly("SSL_CTX_set1_curves_list", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_ADD1_CHAIN_CERT =
        boringOnly("SSL_CTX_add1_chain_cert", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SESS_SET_CACHE_SIZE =
        boringOnly("SSL_CTX_sess_set_cache_size", f(JAVA_LONG, ADDRESS, JAVA_LONG));
    static final MethodHandle SSL_CTX_SESS_GET_CACHE_SIZE =
        boringOnly("SSL_CTX_sess_get_cache_size", f(JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_CTX_SET_SESSION_CACHE_MODE =
        boringOnly("SSL_CTX_set_session_cache_mode", f(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CTX_SET_TLSEXT_SERVERNAME_CALLBACK =
        boringOnly("SSL_CTX_set_tlsext_servername_callback", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_TLSEXT_STATUS_CB =
        boringOnly("SSL_CTX_set_tlsext_status_cb", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_CTX_SET_SELECT_CERTIFICATE_CB =
        boringOnly("SSL_CTX_set_select_certificate_cb", v(ADDRESS, ADDRESS));
    static final MethodHandle SSL_EARLY_CALLBACK_CTX_EXTENSION_GET =
        boringOnly(
            "SSL_early_callback_ctx_extension_get",
            f(JAVA_INT, ADDRESS, JAVA_SHORT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_OCSP_RESPONSE =
        boringOnly("SSL_set_ocsp_response", f(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle SSL_CTX_SET_SESSION_PSK_DHE_TIMEOUT =
        boringOnly("SSL_CTX_set_session_psk_dhe_timeout", v(ADDRESS, JAVA_INT));
    static final MethodHandle SSL_SET_TLSEXT_HOST_NAME =
        boringOnly("SSL_set_tlsext_host_name", f(JAVA_INT, ADDRESS, ADDRESS));

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
        openSslOnly("SSL_ctrl", f(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle SSL_GET_SERVERNAME =
        h("SSL_get_servername", f(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle SSL_CLIENT_HELLO_GET0_EXT =
        openSslOnly("SSL_client_hello_get0_ext", f(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_SESSION_ID_CONTEXT =
        either(
            "SSL_set_session_id_context",
            "SSL_set_session_id_context",
            f(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
            f(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
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
        either(
            "SSL_get1_peer_certificate",
            "SSL_get_peer_certificate", // a reference of its own there too
            f(ADDRESS, ADDRESS),
            f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_GET_PEER_CERT_CHAIN =
        h("SSL_get_peer_cert_chain", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SESSION_REUSED = h("SSL_session_reused", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_GET_SESSION = h("SSL_get_session", f(ADDRESS, ADDRESS));
    static final MethodHandle SSL_SET_SESSION = h("SSL_set_session", f(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle SSL_SESSION_FREE = h("SSL_SESSION_free", v(ADDRESS));
    static final MethodHandle SSL_SESSION_IS_RESUMABLE =
        h("SSL_SESSION_is_resumable", f(JAVA_INT, ADDRESS));
    static final MethodHandle SSL_SESSION_GET_PROTOCOL_VERSION =
        either(
            "SSL_SESSION_get_protocol_version",
            "SSL_SESSION_get_protocol_version",
            f(JAVA_INT, ADDRESS),
            f(JAVA_SHORT, ADDRESS));
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
        errors.add(BORING ? readable(text.getString(0)) : text.getString(0));
      }
    } catch (Throwable e) {
      throw rethrow(e);
    }
  }

  /**
   * BoringSSL's error text with its reason in OpenSSL's words: {@code error:100000c0:SSL
   * routines:OPENSSL_internal:PEER_DID_NOT_RETURN_A_CERTIFICATE} ends in "peer did not return a
   * certificate", as OpenSSL 3 says it, so logs and causes read alike on both.
   */
  static String readable(String error) {
    int colon = error.lastIndexOf(':');
    String reason = error.substring(colon + 1);
    if (colon < 0 || !reason.matches("[A-Z0-9_]+")) {
      return error;
    }
    return error.substring(0, colon + 1)
        + reason.toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
  }

  /** "OpenSSL" or "BoringSSL", for messages. */
  static String libraryName() {
    return BORING ? "BoringSSL" : "OpenSSL";
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
