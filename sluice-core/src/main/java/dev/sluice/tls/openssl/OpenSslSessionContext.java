package dev.sluice.tls.openssl;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.Enumeration;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;

/**
 * The session cache of an OpenSSL server context, sized and timed like the JDK's. Its sessions stay
 * inside OpenSSL: they cannot be listed or looked up from here.
 */
final class OpenSslSessionContext implements SSLSessionContext {
  /** What a timeout of 0 (the JDK's "no limit") becomes: OpenSSL has no unlimited timeout. */
  private static final long NO_LIMIT_SECONDS = 100L * 365 * 24 * 3600;

  private static final int TICKET_LIFETIME_LIMIT = 7 * 24 * 3600;

  private final MemorySegment ctx;
  private final Object owner; // keeps the context from being freed while this is in use

  OpenSslSessionContext(MemorySegment ctx, Object owner) {
    this.ctx = ctx;
    this.owner = owner;
  }

  @Override
  public String toString() {
    return "OpenSslSessionContext[" + owner + "]";
  }

  @Override
  public SSLSession getSession(byte[] sessionId) {
    return null;
  }

  @Override
  public Enumeration<byte[]> getIds() {
    return Collections.emptyEnumeration();
  }

  @Override
  public void setSessionTimeout(int seconds) {
    if (seconds < 0) {
      throw new IllegalArgumentException("negative session timeout " + seconds);
    }
    try {
      long ignored =
          (long)
              OpenSsl.Lib.SSL_CTX_SET_TIMEOUT.invokeExact(
                  ctx, seconds == 0 ? NO_LIMIT_SECONDS : (long) seconds);
      if (OpenSsl.BORING) {
        // Its TLS 1.3 sessions have a timeout of their own, sent uncapped as the ticket's
        // lifetime, which RFC 8446 (4.6.1) bounds at 7 days: clients drop a ticket announcing more.
        OpenSsl.Lib.SSL_CTX_SET_SESSION_PSK_DHE_TIMEOUT.invokeExact(
            ctx, seconds == 0 ? TICKET_LIFETIME_LIMIT : Math.min(seconds, TICKET_LIFETIME_LIMIT));
      }
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  @Override
  public int getSessionTimeout() {
    try {
      long seconds = (long) OpenSsl.Lib.SSL_CTX_GET_TIMEOUT.invokeExact(ctx);
      return seconds >= NO_LIMIT_SECONDS ? 0 : (int) seconds;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  @Override
  public void setSessionCacheSize(int size) {
    if (size < 0) {
      throw new IllegalArgumentException("negative session cache size " + size);
    }
    try {
      LibraryCalls.setSessionCacheSize(ctx, size);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  @Override
  public int getSessionCacheSize() {
    try {
      return (int) LibraryCalls.sessionCacheSize(ctx);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }
}
