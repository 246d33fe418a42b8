package dev.sluice.proxy.runtime;

import dev.sluice.proxy.forward.ExchangeRecord;
import dev.sluice.proxy.forward.Pair;

/**
 * Hears of pairs starting to forward, of every HTTP request that ended, and of every pair that
 * ended (metrics, the access log). Runs on the pair's loop: it must not block.
 */
@FunctionalInterface
public interface PairObserver {
  /** Hears nothing. */
  PairObserver NONE = (listener, pair) -> {};

  /** {@code pair} connected its upstream and forwards now. */
  default void onPairForwarding(ListenerRuntime listener, Pair pair) {}

  /**
   * An HTTP request on {@code pair} ended (see {@link Pair.Owner#onHttpExchange}); before the
   * pair's own end.
   */
  default void onHttpExchange(ListenerRuntime listener, Pair pair, ExchangeRecord exchange) {}

  /** {@code pair} ended; called exactly once per pair. */
  void onPairClosed(ListenerRuntime listener, Pair pair);

  /** Both, in order. */
  default PairObserver andThen(PairObserver next) {
    PairObserver first = this;
    return new PairObserver() {
      @Override
      public void onPairForwarding(ListenerRuntime listener, Pair pair) {
        first.onPairForwarding(listener, pair);
        next.onPairForwarding(listener, pair);
      }

      @Override
      public void onHttpExchange(ListenerRuntime listener, Pair pair, ExchangeRecord exchange) {
        first.onHttpExchange(listener, pair, exchange);
        next.onHttpExchange(listener, pair, exchange);
      }

      @Override
      public void onPairClosed(ListenerRuntime listener, Pair pair) {
        first.onPairClosed(listener, pair);
        next.onPairClosed(listener, pair);
      }
    };
  }
}
