package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The first event after a quiet spell must see the time after the spell: a loop that slept with no
 * timer pending wakes for a new connection, and that connection's activity stamp, idle timer and
 * scheduled tasks start from now, not from when the loop went to sleep.
 *
 * <p>Each test measures a lower bound on the test's side (the client starts its clock before it
 * connects), so a slow machine can only make the measured time longer, never fail the test.
 */
class LoopClockTest {
  private static final Duration TIMEOUT = Duration.ofMillis(400);
  private static final long QUIET_MILLIS = 700;

  @Test
  void idleTimeoutOfAConnectionAcceptedAfterAQuietSpellStartsAtTheAccept() throws Exception {
    // One loop: the listener's own loop adopts every connection, inside its select.
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      Listener listener =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults().withIdleTimeout(TIMEOUT),
              RecordingHandler::new);
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      for (int round = 0; round < 3; round++) {
        Thread.sleep(QUIET_MILLIS); // nothing open, no timer: the loop sleeps in select
        long start = System.nanoTime();
        try (Socket client = new Socket("127.0.0.1", port)) {
          InputStream in = client.getInputStream();
          assertThat(in.read()).as("the server closes the idle connection").isEqualTo(-1);
        }
        long lived = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(lived)
            .as("round %d: the connection lived %d ms of a %s idle timeout", round, lived, TIMEOUT)
            .isGreaterThanOrEqualTo(TIMEOUT.toMillis());
      }
    }
  }

  @Test
  void aTaskScheduledFromAReadAfterAQuietSpellWaitsItsWholeDelay() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      CompletableFuture<Long> firedAfter = new CompletableFuture<>();
      Listener listener =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onChunk(Connection connection, Chunk chunk) {
                      chunk.release();
                      long scheduledAt = System.nanoTime();
                      connection
                          .loop()
                          .schedule(
                              TIMEOUT, () -> firedAfter.complete(System.nanoTime() - scheduledAt));
                    }
                  });
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      try (Socket client = new Socket("127.0.0.1", port)) {
        Thread.sleep(QUIET_MILLIS); // the loop sleeps: no timer is pending
        client.getOutputStream().write(1);
        long waited = TimeUnit.NANOSECONDS.toMillis(Await.result(firedAfter, "the task"));
        assertThat(waited)
            .as("a %s task ran after %d ms", TIMEOUT, waited)
            .isGreaterThanOrEqualTo(TIMEOUT.toMillis());
      }
    }
  }
}
