package dev.sluice.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting in tests: a generous deadline that only a hang reaches, never a timing assertion. */
public final class Await {
  /** How long a test waits for something that should happen promptly before calling it a hang. */
  public static final Duration PATIENCE = Duration.ofSeconds(60);

  private Await() {}

  /**
   * Polls {@code condition} until it holds; fails with {@code description} after {@link #PATIENCE}.
   */
  public static void until(BooleanSupplier condition, Supplier<String> description) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("gave up after " + PATIENCE + " waiting for " + description.get());
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + description.get(), e);
      }
    }
  }

  /**
   * The future's value; its failure is rethrown as an AssertionError with the original cause, and a
   * hang fails after {@link #PATIENCE}.
   */
  public static <T> T result(CompletableFuture<T> future, String what) {
    try {
      return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError(what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("gave up after " + PATIENCE + " waiting for " + what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }

  /** The failure of a future that must fail; fails the test if it succeeds or hangs. */
  public static Throwable failure(CompletableFuture<?> future, String what) {
    try {
      Object value = future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError(what + " should have failed but gave " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("gave up after " + PATIENCE + " waiting for " + what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + what, e);
    }
  }
}
