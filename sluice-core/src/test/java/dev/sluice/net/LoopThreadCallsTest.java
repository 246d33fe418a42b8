package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Calls that block on the loop must not deadlock or stall when a loop callback makes them. */
class LoopThreadCallsTest {

  @Test
  void listenFromALoopCallbackDoesNotDeadlock() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      CompletableFuture<Listener> second = new CompletableFuture<>();
      Listener first =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onActive(Connection connection) {
                      super.onActive(connection);
                      try {
                        second.complete(
                            group.listen(
                                new InetSocketAddress("127.0.0.1", 0),
                                SocketOptions.defaults(),
                                RecordingHandler::new));
                      } catch (Throwable t) {
                        second.completeExceptionally(t);
                      }
                    }
                  });
      RecordingHandler client = new RecordingHandler();
      group.connect(first.localAddress(), SocketOptions.defaults(), client);
      Listener listener = Await.result(second, "listen called on the loop");
      RecordingHandler viaSecond = new RecordingHandler();
      group.connect(listener.localAddress(), SocketOptions.defaults(), viaSecond);
      Await.result(viaSecond.active(), "a connection through the listener opened on the loop");
    }
  }

  @Test
  void closingTheGroupFromItsOwnLoopFailsAtOnce() throws Exception {
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    try {
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      group
          .loops()
          .getFirst()
          .execute(
              () -> {
                try {
                  group.close();
                  outcome.complete(null);
                } catch (Throwable t) {
                  outcome.complete(t);
                }
              });
      Throwable thrown = Await.result(outcome, "close() on the loop thread");
      assertThat(thrown)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("event loop thread");
    } finally {
      group.close();
    }
  }
}
