package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.TransportConfig;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A TLS server's handshake timeout, for a client that arrives after the loop slept through a quiet
 * spell, starts when the client connects. The client measures a lower bound from before its
 * connect, so a slow machine can only make it longer.
 */
class TlsClockTest extends TlsTestBase {
  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofMillis(400);

  @Test
  void theHandshakeTimeoutOfAClientAfterAQuietSpellStartsAtItsConnect() throws Exception {
    EventLoopGroup group = group(TransportConfig.defaults().withEventLoops(1));
    Listener listener =
        listen(
            group, serverConfig().withHandshakeTimeout(HANDSHAKE_TIMEOUT), RecordingHandler::new);
    int port = ((InetSocketAddress) listener.localAddress()).getPort();
    for (int round = 0; round < 3; round++) {
      Thread.sleep(700); // nothing open, no timer: the loop sleeps in select
      long start = System.nanoTime();
      try (Socket silent = new Socket("127.0.0.1", port)) {
        InputStream in = silent.getInputStream();
        while (in.read() >= 0) {
          // the server closes when the handshake times out
        }
      }
      long lived = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(lived)
          .as(
              "round %d: a silent client lasted %d ms of a %s handshake timeout",
              round, lived, HANDSHAKE_TIMEOUT)
          .isGreaterThanOrEqualTo(HANDSHAKE_TIMEOUT.toMillis());
    }
  }
}
