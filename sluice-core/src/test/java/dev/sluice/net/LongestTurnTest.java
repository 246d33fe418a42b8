package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A loop reports the longest turn it took without returning to select, for a stall gauge. The
 * bounds are lower bounds only: a slow machine makes turns longer, never this test fail.
 */
class LongestTurnTest {
  private static final long STALL_MILLIS = 120;

  @Test
  void aCallbackThatBlocksShowsAsTheLongestTurnAndTheReadingStartsAfresh() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      EventLoop loop = group.loops().getFirst();
      CompletableFuture<Void> stalled = new CompletableFuture<>();
      Listener listener =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onChunk(Connection connection, Chunk chunk) {
                      chunk.release();
                      sleep(STALL_MILLIS); // a handler that blocks its loop
                      stalled.complete(null);
                    }
                  });
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      Thread.sleep(300); // a quiet spell spent in select is not a turn
      loop.takeLongestTurnNanos();
      try (Socket client = new Socket("127.0.0.1", port)) {
        client.getOutputStream().write(1);
        Await.result(stalled, "the stalling read");
        // The turn is accounted once it ends, a moment after the callback returned.
        long longest = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (longest < TimeUnit.MILLISECONDS.toNanos(STALL_MILLIS)
            && System.nanoTime() < deadline) {
          longest = Math.max(longest, loop.takeLongestTurnNanos());
          Thread.sleep(5);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(longest))
            .as("the longest turn covers the blocked read")
            .isGreaterThanOrEqualTo(STALL_MILLIS);
      }
    }
  }

  @Test
  void aSpellInSelectIsNotATurn() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      EventLoop loop = group.loops().getFirst();
      CompletableFuture<Void> ran = new CompletableFuture<>();
      loop.execute(() -> ran.complete(null));
      Await.result(ran, "a task");
      loop.takeLongestTurnNanos();
      Thread.sleep(STALL_MILLIS * 3); // idle: the loop waits in select
      long longest = TimeUnit.NANOSECONDS.toMillis(loop.takeLongestTurnNanos());
      assertThat(longest).as("an idle loop's longest turn, ms").isLessThan(STALL_MILLIS * 3);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
