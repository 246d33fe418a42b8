package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** A listen that cannot bind fails with an IOException naming the address, and leaks nothing. */
class ListenFailureTest {
  @Test
  void aHostThatDoesNotResolveFailsAsABindFailureAndLeaksNoSocket() {
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    try {
      long fdsBefore = -1;
      for (int i = 0; i < 20; i++) {
        if (i == 1) {
          fdsBefore = ShutdownRaceTest.openFileDescriptors(); // after the resolver's first use
        }
        // Names under .invalid never resolve (RFC 6761); the JDK's bind throws unchecked for it.
        assertThatThrownBy(
                () ->
                    group.listen(
                        new InetSocketAddress("nowhere.invalid", 7000),
                        SocketOptions.defaults(),
                        RecordingHandler::new))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("nowhere.invalid")
            .hasMessageContaining("does not resolve");
      }
      long before = fdsBefore;
      Await.until(
          () -> ShutdownRaceTest.openFileDescriptors() <= before,
          () ->
              "file descriptors back to "
                  + before
                  + " (now "
                  + ShutdownRaceTest.openFileDescriptors()
                  + ")");
    } finally {
      group.close();
    }
  }
}
