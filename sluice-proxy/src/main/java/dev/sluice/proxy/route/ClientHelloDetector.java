package dev.sluice.proxy.route;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.Detection;
import dev.sluice.net.Detector;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import java.nio.ByteBuffer;

/**
 * The first stage of a passthrough listener: reads the client's ClientHello (without terminating
 * TLS) for the server name the pair is routed by, then hands the connection to the pair's client
 * leg with every byte read so far, to be forwarded untouched. A ClientHello that is malformed, too
 * large or too slow refuses the connection with that reason. The ClientHello is read as it arrives,
 * each read resuming where the last stopped. Its JA3 and JA4 are recorded on the pair, and a client
 * whose fingerprint the listener blocks is refused.
 */
public final class ClientHelloDetector implements Detector {
  private final Pair pair;
  private final ClientHello.Reader reader;
  private final FingerprintCheck check;

  public ClientHelloDetector(Pair pair, int maxBytes, FingerprintCheck check) {
    this.pair = pair;
    this.reader = new ClientHello.Reader(maxBytes);
    this.check = check;
  }

  @Override
  public Detection detect(Connection connection, ByteBuffer prefix) {
    pair.facts().peerAddress(connection.remoteAddress());
    return switch (reader.read(prefix)) { // resumes where the last read stopped
      case ClientHello.NeedMore more -> Detection.NEED_MORE;
      case ClientHello.Parsed hello -> {
        pair.facts().serverName(hello.serverName());
        pair.facts()
            .applicationProtocol(hello.protocols().isEmpty() ? null : hello.protocols().getFirst());
        Fingerprint fingerprint = Fingerprint.of(hello.offer());
        pair.facts().fingerprint(fingerprint);
        String blocked = check.refusal(fingerprint);
        yield blocked == null
            ? Detection.handOver(pair.client())
            : refuse(CloseCause.FINGERPRINT_BLOCKED, blocked);
      }
      case ClientHello.Invalid invalid -> refuse(invalid.reason());
    };
  }

  @Override
  public Detection onTimeout(Connection connection, ByteBuffer prefix) {
    String detail = "no complete ClientHello in time (" + prefix.remaining() + " B received)";
    return check.active()
        ? refuse(CloseCause.CLIENT_HELLO_INCOMPLETE, detail)
        : refuse(CloseCause.CLIENT_HELLO_INVALID, detail);
  }

  @Override
  public Detection onEndOfInput(Connection connection, ByteBuffer prefix) {
    return refuse("the client closed after " + prefix.remaining() + " B of ClientHello");
  }

  @Override
  public Detection onLimit(Connection connection, ByteBuffer prefix) {
    return refuse("no complete ClientHello within " + prefix.remaining() + " B");
  }

  @Override
  public void onClosed(Connection connection, CloseReason reason) {
    pair.facts().peerAddress(connection.remoteAddress());
    pair.refused(
        CloseCause.closedInFirstStage(reason, CloseCause.CLIENT_HELLO_INVALID),
        "closed before a ClientHello: " + reason.label());
  }

  private Detection refuse(String reason) {
    return refuse(CloseCause.CLIENT_HELLO_INVALID, reason);
  }

  private Detection refuse(CloseCause cause, String reason) {
    pair.refused(cause, reason);
    return Detection.reject(cause.label(), reason);
  }
}
