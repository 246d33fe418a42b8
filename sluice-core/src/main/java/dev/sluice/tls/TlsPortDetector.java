package dev.sluice.tls;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.Connection;
import dev.sluice.net.Detection;
import dev.sluice.net.Detector;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The first stage of a TLS port: a TLS record (or an SSLv2-compatible hello) goes to TLS at once; a
 * plaintext HTTP request gets a 400 reply saying so and fails the handshake with that reason;
 * anything else goes to TLS, whose engine names what is wrong with it. A client that sends nothing
 * fails with a handshake timeout; one that resets or closes first fails with that reason. The
 * application hears every failure through {@link TlsHandshakeListener}.
 */
final class TlsPortDetector implements Detector {
  /** Enough to tell an HTTP method from a TLS record header. */
  static final int MAX_BYTES = 8;

  private static final byte HANDSHAKE_RECORD = 0x16;

  private static final String[] HTTP_METHODS = {
    "GET ", "HEAD", "POST", "PUT ", "DELE", "OPTI", "PATC", "CONN", "TRAC", "PRI "
  };

  private static final byte[] HTTP_REPLY =
      ("HTTP/1.1 400 Bad Request\r\n"
              + "Content-Type: text/plain\r\n"
              + "Content-Length: 41\r\n"
              + "Connection: close\r\n"
              + "\r\n"
              + "This port speaks TLS: use https:// here.\n")
          .getBytes(StandardCharsets.US_ASCII);

  private final TlsConnection tls;
  private final Duration handshakeTimeout;

  TlsPortDetector(TlsConnection tls, Duration handshakeTimeout) {
    this.tls = tls;
    this.handshakeTimeout = handshakeTimeout;
  }

  @Override
  public Detection detect(Connection connection, ByteBuffer prefix) {
    byte first = prefix.get(0);
    if (first == HANDSHAKE_RECORD || (first & 0x80) != 0) {
      return toTls();
    }
    if (prefix.remaining() < 4) {
      return first >= 'A' && first <= 'Z' ? Detection.NEED_MORE : toTls();
    }
    if (isHttpMethod(prefix)) {
      connection.write(ByteBuffer.wrap(HTTP_REPLY));
      return refuse(Kind.HANDSHAKE_FAILED, "a plaintext HTTP request on a TLS port");
    }
    return toTls();
  }

  @Override
  public Detection onTimeout(Connection connection, ByteBuffer prefix) {
    return refuse(
        Kind.HANDSHAKE_TIMEOUT, "no TLS handshake within " + handshakeTimeout.toMillis() + " ms");
  }

  @Override
  public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
    return toTls(); // TLS reports a peer that closed during the handshake
  }

  @Override
  public Detection onLimit(Connection connection, ByteBuffer prefix) {
    return toTls();
  }

  @Override
  public void onClosed(Connection connection, CloseReason reason) {
    // Reset or closed before TLS took it (a load balancer's TCP check, a scanner): the handler
    // hears of the handshake that never was, so that the application can count and release it.
    tls.closedBeforeStart(connection, reason);
  }

  private Detection toTls() {
    return Detection.handOver(tls.transportHandler());
  }

  private Detection refuse(Kind kind, String detail) {
    tls.refuseOnStart(new CloseReason.TlsFailure(kind, detail, null));
    return toTls();
  }

  private static boolean isHttpMethod(ByteBuffer src) {
    for (String method : HTTP_METHODS) {
      boolean match = true;
      for (int i = 0; i < 4 && match; i++) {
        match = src.get(i) == method.charAt(i);
      }
      if (match) {
        return true;
      }
    }
    return false;
  }
}
