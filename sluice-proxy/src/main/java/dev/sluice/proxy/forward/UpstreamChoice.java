package dev.sluice.proxy.forward;

/** Where a pair's next connect goes, or why it goes nowhere. */
public sealed interface UpstreamChoice {
  /** Connect to {@code upstream}. */
  record To(Pair.Upstream upstream) implements UpstreamChoice {}

  /** No cluster for this client. */
  record NoRoute(String detail) implements UpstreamChoice {}

  /** The cluster has no upstream that can take it now. */
  record NoneHealthy(String detail) implements UpstreamChoice {}
}
