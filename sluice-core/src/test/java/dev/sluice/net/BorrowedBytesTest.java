package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A borrowed read is valid only inside its callback, and only until it is taken. */
class BorrowedBytesTest {
  private static final String MESSAGE = "borrowed";

  @TempDir Path dir;

  @Test
  void everyUseAfterTheCallbackReturnedThrows() throws Exception {
    CompletableFuture<List<Throwable>> lateUses = new CompletableFuture<>();
    ConnectionHandler keeper =
        new ConnectionHandler() {
          @Override
          public void onRead(Connection connection, BorrowedBytes bytes) {
            String inside = new String(bytes.copy().bytes(), StandardCharsets.US_ASCII);
            if (!inside.equals(MESSAGE)) {
              lateUses.completeExceptionally(new AssertionError("read " + inside));
            }
            // Runs on the loop after this callback returned, before any other read.
            connection.loop().execute(() -> lateUses.complete(useEveryWay(bytes)));
          }
        };
    List<Throwable> failures = sendAndAwait(keeper, lateUses);
    assertThat(failures).hasSize(5);
    assertThat(failures)
        .allSatisfy(
            e ->
                assertThat(e)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("used after their read callback returned"));
  }

  @Test
  void aTakenReadCannotBeUsedAgainInsideTheCallback() throws Exception {
    CompletableFuture<Throwable> useAfterTake = new CompletableFuture<>();
    ConnectionHandler taker =
        new ConnectionHandler() {
          @Override
          public void onRead(Connection connection, BorrowedBytes bytes) {
            bytes.take().release();
            try {
              bytes.buffer();
              useAfterTake.complete(null);
            } catch (IllegalStateException e) {
              useAfterTake.complete(e);
            }
          }
        };
    assertThat(sendAndAwait(taker, useAfterTake))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after take()");
  }

  /**
   * One view object serves every read on a loop, so a kept reference is valid again while another
   * connection's read is lent on that loop. Used from another thread then, it must still throw, not
   * show that other connection's bytes.
   */
  @Test
  void aKeptViewStaysUnusableFromAnotherThreadWhileTheLoopLendsAnotherRead() throws Exception {
    CompletableFuture<BorrowedBytes> kept = new CompletableFuture<>();
    CountDownLatch secondReadLent = new CountDownLatch(1);
    CountDownLatch secondReadMayReturn = new CountDownLatch(1);
    ConnectionHandler server =
        new ConnectionHandler() {
          @Override
          public void onRead(Connection connection, BorrowedBytes bytes) {
            if (kept.complete(bytes)) {
              connection.write(ByteBuffer.wrap(MESSAGE.getBytes(StandardCharsets.US_ASCII)));
            }
          }
        };
    ConnectionHandler client =
        new ConnectionHandler() {
          @Override
          public void onRead(Connection connection, BorrowedBytes bytes) {
            secondReadLent.countDown();
            try { // hold this read open while the test thread tries the kept view
              secondReadMayReturn.await(Await.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(1),
            Transport.TCP.bindAddress(dir),
            () -> server)) {
      loopback.connect(client).write(ByteBuffer.wrap(MESSAGE.getBytes(StandardCharsets.US_ASCII)));
      BorrowedBytes stale = Await.result(kept, "the server's read");
      try {
        assertThat(secondReadLent.await(Await.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
            .as("the client's read, on the same loop, is being lent")
            .isTrue();
        List<Throwable> failures = useEveryWay(stale);
        assertThat(failures).hasSize(5);
        assertThat(failures)
            .allSatisfy(
                e ->
                    assertThat(e)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("from another thread"));
      } finally {
        secondReadMayReturn.countDown();
      }
    }
  }

  private <T> T sendAndAwait(ConnectionHandler server, CompletableFuture<T> outcome)
      throws Exception {
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(1),
            Transport.TCP.bindAddress(dir),
            () -> server)) {
      Connection client = loopback.connect((connection, bytes) -> {});
      client.write(ByteBuffer.wrap(MESSAGE.getBytes(StandardCharsets.US_ASCII)));
      return Await.result(outcome, "the server's read");
    }
  }

  private static List<Throwable> useEveryWay(BorrowedBytes bytes) {
    List<Consumer<BorrowedBytes>> uses =
        List.of(
            BorrowedBytes::length,
            BorrowedBytes::buffer,
            BorrowedBytes::take,
            BorrowedBytes::copy,
            BorrowedBytes::copyRemaining);
    List<Throwable> failures = new ArrayList<>();
    for (Consumer<BorrowedBytes> use : uses) {
      try {
        use.accept(bytes);
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    return failures;
  }
}
