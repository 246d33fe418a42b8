package dev.sluice.tls;

import dev.sluice.tls.openssl.OpenSsl;
import javax.net.ssl.SSLSession;

/** Whether a connection's handshake resumed a session, on either engine. */
public final class Resumption {
  private Resumption() {}

  /**
   * Whether the handshake of a connection that began at {@code connectionStartMillis} resumed
   * {@code session}. The OpenSSL engine knows ({@code SSL_session_reused}). The JDK has no flag,
   * but its session keeps the creation time of the full handshake that made it (a TLS 1.2 session
   * from the cache and one restored from a TLS 1.2 or 1.3 ticket alike), so a session older than
   * the connection is a resumed one: a full handshake always makes its session after the start.
   */
  public static boolean resumed(SSLSession session, long connectionStartMillis) {
    Boolean known = OpenSsl.resumed(session);
    return known != null ? known : session.getCreationTime() < connectionStartMillis;
  }
}
