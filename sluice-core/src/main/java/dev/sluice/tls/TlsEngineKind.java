package dev.sluice.tls;

import dev.sluice.tls.openssl.OpenSsl;
import java.security.GeneralSecurityException;
import java.util.Locale;

/**
 * Which TLS implementation a server or client runs on: the JDK's {@code SSLEngine}, or OpenSSL's
 * libssl 3 reached through java.lang.foreign (no JNI, nothing compiled; needs native access). The
 * OpenSSL engine runs on BoringSSL instead where the process chooses it ({@code
 * sluice.tls.library=boringssl} or {@code SLUICE_TLS_LIBRARY=boringssl}): same engine, same API.
 */
public enum TlsEngineKind {
  /**
   * For a server, OpenSSL when libssl.so.3 loads in this JVM (and the settings allow it), else the
   * JDK; for a client the JDK (OpenSSL's client resumes sessions and trusts the JVM's default
   * authorities too, but has not yet run the whole test matrix as the default).
   */
  AUTO,
  /** OpenSSL's libssl 3; an error where it cannot load. */
  OPENSSL,
  /** The JDK's own engine. */
  JDK;

  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");

  /** The property that sets the default engine of new configurations ({@code auto}). */
  public static final String DEFAULT_PROPERTY = "sluice.tls.engine";

  private static volatile boolean autoLogged;

  /** The default of new configurations: {@value #DEFAULT_PROPERTY}, else {@link #AUTO}. */
  public static TlsEngineKind defaultKind() {
    String value = System.getProperty(DEFAULT_PROPERTY);
    return value == null || value.isBlank() ? AUTO : parse(value);
  }

  /**
   * The kind named {@code value} ({@code auto}, {@code openssl}, {@code jdk}, any case).
   *
   * @throws IllegalArgumentException for another name
   */
  public static TlsEngineKind parse(String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "auto" -> AUTO;
      case "openssl" -> OPENSSL;
      case "jdk" -> JDK;
      default ->
          throw new IllegalArgumentException(
              "unknown TLS engine '" + value + "' (expected auto, openssl or jdk)");
    };
  }

  /** The name used in configuration and output: {@code auto}, {@code openssl}, {@code jdk}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Why the OpenSSL engine cannot run in this JVM (libssl.so.3 missing, native access not enabled,
   * ...), or null when it can.
   */
  public static String openSslUnavailableReason() {
    return OpenSsl.unavailableReason();
  }

  /** The version of the OpenSSL library the engine runs on, or null when it cannot run. */
  public static String openSslVersion() {
    return OpenSsl.version();
  }

  /** What {@link #AUTO} picks in this JVM when nothing rules OpenSSL out (said once, logged). */
  public static TlsEngineKind autoChoice() {
    String reason = OpenSsl.unavailableReason();
    if (!autoLogged) {
      autoLogged = true;
      if (reason == null) {
        LOG.log(System.Logger.Level.INFO, "TLS engine auto: openssl ({0})", OpenSsl.version());
      } else {
        LOG.log(System.Logger.Level.INFO, "TLS engine auto: jdk (OpenSSL: {0})", reason);
      }
    }
    return reason == null ? OPENSSL : JDK;
  }

  /**
   * The engine a client runs: {@link #AUTO} is the JDK, {@link #OPENSSL} only when asked for.
   *
   * @throws GeneralSecurityException when OpenSSL is asked for and cannot run
   */
  TlsEngineKind resolveForClient() throws GeneralSecurityException {
    return this == AUTO ? JDK : resolve(false);
  }

  /**
   * The engine a server runs: {@link #JDK} or {@link #OPENSSL}.
   *
   * @param ticketKeys whether the server takes its ticket keys from a file (OpenSSL only)
   * @throws GeneralSecurityException when OpenSSL is asked for and cannot run, or a ticket key file
   *     is asked of the JDK engine
   */
  TlsEngineKind resolve(boolean ticketKeys) throws GeneralSecurityException {
    if (ticketKeys && this == JDK) {
      throw new GeneralSecurityException(
          "a session ticket key file needs the OpenSSL engine, not jdk");
    }
    return switch (this) {
      case JDK -> JDK;
      case AUTO -> ticketKeys ? OPENSSL.resolve(false) : autoChoice();
      case OPENSSL -> {
        String reason = OpenSsl.unavailableReason();
        if (reason != null) {
          throw new GeneralSecurityException("the OpenSSL TLS engine is not available: " + reason);
        }
        yield OPENSSL;
      }
    };
  }
}
