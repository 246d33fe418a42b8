package dev.sluice.proxy.route;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.Detection;
import dev.sluice.net.Detector;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The first stage of a terminating listener: reads the client's ClientHello, as it arrives, for its
 * JA3 and JA4 and the server name it asks for (recorded on the pair), refuses a client whose
 * fingerprint the listener blocks, and hands every byte read so far to TLS ({@code next}), which
 * reads the same ClientHello again.
 *
 * <p>Bytes that are not a ClientHello go to TLS as they are (a plaintext HTTP request gets its 400
 * there, a malformed hello its handshake failure) unless the listener blocks fingerprints: then a
 * ClientHello that cannot be read, or does not complete within the handshake timeout, is refused
 * ({@code client_hello_incomplete}), so that no client passes by hiding its fingerprint.
 */
public final class TlsHelloDetector implements Detector {
  private static final int HANDSHAKE_RECORD = 22;

  private final Pair pair;
  private final ConnectionHandler next;
  private final ClientHello.Reader reader;
  private final FingerprintCheck check;
  private final Duration handshakeTimeout;

  public TlsHelloDetector(
      Pair pair,
      ConnectionHandler next,
      int maxBytes,
      FingerprintCheck check,
      Duration handshakeTimeout) {
    this.pair = pair;
    this.next = next;
    this.reader = new ClientHello.Reader(maxBytes);
    this.check = check;
    this.handshakeTimeout = handshakeTimeout;
  }

  @Override
  public Detection detect(Connection connection, ByteBuffer prefix) {
    pair.facts()
        .peerAddress(connection.remoteAddress()); // for the log line of a handshake that fails
    return switch (reader.read(prefix)) { // resumes where the last read stopped
      case ClientHello.NeedMore more -> Detection.NEED_MORE;
      case ClientHello.Parsed hello -> {
        // The name asked for, so that a handshake that fails is logged with it; once TLS is up,
        // the name it negotiated (the same: a second hello may not change it) replaces it.
        pair.facts().serverName(hello.serverName());
        Fingerprint fingerprint = Fingerprint.of(hello.offer());
        pair.facts().fingerprint(fingerprint);
        String blocked = check.refusal(fingerprint);
        yield blocked == null
            ? toTls()
            : refuse(connection, CloseCause.FINGERPRINT_BLOCKED, blocked);
      }
      case ClientHello.Invalid invalid ->
          check.active() && (prefix.get(prefix.position()) & 0xff) == HANDSHAKE_RECORD
              ? refuse(
                  connection,
                  CloseCause.CLIENT_HELLO_INCOMPLETE,
                  "no fingerprint: " + invalid.reason())
              : toTls();
    };
  }

  @Override
  public Detection onTimeout(Connection connection, ByteBuffer prefix) {
    String detail =
        "no complete ClientHello within "
            + handshakeTimeout.toMillis()
            + " ms ("
            + prefix.remaining()
            + " B received)";
    return refuse(
        connection,
        check.active() ? CloseCause.CLIENT_HELLO_INCOMPLETE : CloseCause.TLS_HANDSHAKE_TIMEOUT,
        detail);
  }

  @Override
  public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
    return toTls(); // TLS reports a peer that closed during the handshake
  }

  @Override
  public Detection onLimit(Connection connection, ByteBuffer prefix) {
    return check.active()
        ? refuse(
            connection,
            CloseCause.CLIENT_HELLO_INCOMPLETE,
            "no complete ClientHello within " + prefix.remaining() + " B")
        : toTls();
  }

  @Override
  public void onClosed(Connection connection, CloseReason reason) {
    pair.facts().peerAddress(connection.remoteAddress());
    pair.refused(
        CloseCause.closedInFirstStage(reason, CloseCause.TLS_HANDSHAKE_FAILED),
        "closed before a ClientHello: " + reason.label());
  }

  private Detection toTls() {
    return Detection.handOver(next);
  }

  private Detection refuse(Connection connection, CloseCause cause, String detail) {
    pair.facts().peerAddress(connection.remoteAddress());
    pair.refused(cause, detail);
    return Detection.reject(cause.label(), detail);
  }
}
