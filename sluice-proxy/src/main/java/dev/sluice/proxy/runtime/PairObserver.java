package dev.sluice.proxy.runtime;

import dev.sluice.proxy.forward.Pair;

/** Hears of every pair that ended (the access log). Runs on the pair's loop: it must not block. */
@FunctionalInterface
public interface PairObserver {
  /** Hears nothing. */
  PairObserver NONE = (listener, pair) -> {};

  void onPairClosed(ListenerRuntime listener, Pair pair);
}
