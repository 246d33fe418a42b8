package dev.sluice.testing;

import java.util.stream.IntStream;

/**
 * The per-socket-write caps every integrity test runs under ({@link
 * dev.sluice.net.TransportConfig#withMaxBytesPerSocketWrite}), so the partial-write paths run on
 * every transfer, not only under load.
 */
public final class WriteCaps {
  /** No cap: the socket takes what it can. */
  public static final int NONE = 0;

  /** Smaller than a page and than the staging buffer: almost every write is partial. */
  public static final int SMALL = 1_000;

  /** Larger than the copy threshold, not a multiple of the 4 KiB stamp interval. */
  public static final int LARGE = 50_000;

  private WriteCaps() {}

  /** Every cap, {@link #NONE} first. */
  public static IntStream all() {
    return IntStream.of(NONE, SMALL, LARGE);
  }
}
