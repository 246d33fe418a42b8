package dev.sluice.tls.openssl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The calls whose form differs between the two libraries: OpenSSL 3 reaches these settings through
 * its {@code SSL_CTX_ctrl} and {@code SSL_ctrl} macros, BoringSSL has a function for each. Each
 * method returns what the library returned (1 for success where it says so).
 */
@SuppressWarnings("restricted") // native calls are this package's job
final class LibraryCalls {
  private LibraryCalls() {}

  /** SSL_MODE_RELEASE_BUFFERS where asked (BoringSSL always releases them: nothing to set). */
  static void setMode(MemorySegment ctx, long mode) throws Throwable {
    if (OpenSsl.BORING) {
      return;
    }
    ctrl(ctx, OpenSsl.SSL_CTRL_MODE, mode, MemorySegment.NULL);
  }

  /** DHE parameters matching the certificate (OpenSSL only: BoringSSL has no DHE suites). */
  static void setDhAuto(MemorySegment ctx) throws Throwable {
    if (!OpenSsl.BORING) {
      ctrl(ctx, OpenSsl.SSL_CTRL_SET_DH_AUTO, 1, MemorySegment.NULL);
    }
  }

  static boolean setProtocolVersions(MemorySegment ctx, int min, int max) throws Throwable {
    if (OpenSsl.BORING) {
      return (int) OpenSsl.Lib.SSL_CTX_SET_MIN_PROTO_VERSION.invokeExact(ctx, (short) min) == 1
          && (int) OpenSsl.Lib.SSL_CTX_SET_MAX_PROTO_VERSION.invokeExact(ctx, (short) max) == 1;
    }
    return ctrl(ctx, OpenSsl.SSL_CTRL_SET_MIN_PROTO_VERSION, min, MemorySegment.NULL) == 1
        && ctrl(ctx, OpenSsl.SSL_CTRL_SET_MAX_PROTO_VERSION, max, MemorySegment.NULL) == 1;
  }

  static boolean setGroups(MemorySegment ctx, MemorySegment list) throws Throwable {
    if (OpenSsl.BORING) {
      return (int) OpenSsl.Lib.SSL_CTX_SET1_CURVES_LIST.invokeExact(ctx, list) == 1;
    }
    return ctrl(ctx, OpenSsl.SSL_CTRL_SET_GROUPS_LIST, 0, list) == 1;
  }

  /** Adds an intermediate to the chain the context presents (the context takes a reference). */
  static boolean addChainCertificate(MemorySegment ctx, MemorySegment x509) throws Throwable {
    if (OpenSsl.BORING) {
      return (int) OpenSsl.Lib.SSL_CTX_ADD1_CHAIN_CERT.invokeExact(ctx, x509) == 1;
    }
    return ctrl(ctx, OpenSsl.SSL_CTRL_CHAIN_CERT, 1, x509) == 1;
  }

  static void setSessionCacheMode(MemorySegment ctx, long mode) throws Throwable {
    if (OpenSsl.BORING) {
      int ignored = (int) OpenSsl.Lib.SSL_CTX_SET_SESSION_CACHE_MODE.invokeExact(ctx, (int) mode);
      return;
    }
    ctrl(ctx, OpenSsl.SSL_CTRL_SET_SESS_CACHE_MODE, mode, MemorySegment.NULL);
  }

  static void setSessionCacheSize(MemorySegment ctx, long size) throws Throwable {
    if (OpenSsl.BORING) {
      long ignored = (long) OpenSsl.Lib.SSL_CTX_SESS_SET_CACHE_SIZE.invokeExact(ctx, size);
      return;
    }
    ctrl(ctx, OpenSsl.SSL_CTRL_SET_SESS_CACHE_SIZE, size, MemorySegment.NULL);
  }

  static long sessionCacheSize(MemorySegment ctx) throws Throwable {
    if (OpenSsl.BORING) {
      return (long) OpenSsl.Lib.SSL_CTX_SESS_GET_CACHE_SIZE.invokeExact(ctx);
    }
    return ctrl(ctx, OpenSsl.SSL_CTRL_GET_SESS_CACHE_SIZE, 0, MemorySegment.NULL);
  }

  /** The servername callback: int (*)(SSL *ssl, int *alert, void *arg) in both. */
  static void setServerNameCallback(MemorySegment ctx, MemorySegment callback) throws Throwable {
    if (OpenSsl.BORING) {
      int ignored =
          (int) OpenSsl.Lib.SSL_CTX_SET_TLSEXT_SERVERNAME_CALLBACK.invokeExact(ctx, callback);
      return;
    }
    long ignored =
        (long)
            OpenSsl.Lib.SSL_CTX_CALLBACK_CTRL.invokeExact(
                ctx, OpenSsl.SSL_CTRL_SET_TLSEXT_SERVERNAME_CB, callback);
  }

  /** The OCSP status callback: int (*)(SSL *ssl, void *arg) in both. */
  static void setStatusCallback(MemorySegment ctx, MemorySegment callback) throws Throwable {
    if (OpenSsl.BORING) {
      int ignored = (int) OpenSsl.Lib.SSL_CTX_SET_TLSEXT_STATUS_CB.invokeExact(ctx, callback);
      return;
    }
    long ignored =
        (long)
            OpenSsl.Lib.SSL_CTX_CALLBACK_CTRL.invokeExact(
                ctx, OpenSsl.SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB, callback);
  }

  /**
   * Staples {@code response} to this connection's handshake: BoringSSL copies it, OpenSSL takes a
   * copy made with its own allocator (and frees it).
   */
  static boolean staple(MemorySegment ssl, byte[] response, MemorySegment allocatedIn)
      throws Throwable {
    if (OpenSsl.BORING) {
      try (Arena arena = Arena.ofConfined()) {
        return (int)
                OpenSsl.Lib.SSL_SET_OCSP_RESPONSE.invokeExact(
                    ssl, arena.allocateFrom(JAVA_BYTE, response), (long) response.length)
            == 1;
      }
    }
    MemorySegment copy =
        (MemorySegment)
            OpenSsl.Lib.CRYPTO_MALLOC.invokeExact((long) response.length, allocatedIn, 0);
    if (copy.equals(MemorySegment.NULL)) {
      return false;
    }
    MemorySegment.copy(
        response, 0, copy.reinterpret(response.length), JAVA_BYTE, 0, response.length);
    long set =
        (long)
            OpenSsl.Lib.SSL_CTRL.invokeExact(
                ssl,
                OpenSsl.SSL_CTRL_SET_TLSEXT_STATUS_REQ_OCSP_RESP,
                (long) response.length,
                copy);
    if (set != 1) {
      OpenSsl.Lib.CRYPTO_FREE.invokeExact(copy, allocatedIn, 0);
      return false;
    }
    return true;
  }

  /** The server name a client sends (SNI). */
  static boolean setHostName(MemorySegment ssl, MemorySegment name) throws Throwable {
    if (OpenSsl.BORING) {
      return (int) OpenSsl.Lib.SSL_SET_TLSEXT_HOST_NAME.invokeExact(ssl, name) == 1;
    }
    return (long)
            OpenSsl.Lib.SSL_CTRL.invokeExact(ssl, OpenSsl.SSL_CTRL_SET_TLSEXT_HOSTNAME, 0L, name)
        == 1;
  }

  private static long ctrl(MemorySegment ctx, int command, long value, MemorySegment pointer)
      throws Throwable {
    return (long) OpenSsl.Lib.SSL_CTX_CTRL.invokeExact(ctx, command, value, pointer);
  }
}
