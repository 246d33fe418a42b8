package dev.sluice.proxy.config;

/**
 * The most bytes read at once from each leg of a pair. They cost no resident memory per connection
 * (every read lands in the loop's one slab): a smaller size costs more reads (syscalls) for the
 * same bytes, a larger one lets one busy connection hold the loop longer per turn.
 *
 * @param client from the client
 * @param upstream from the upstream
 */
public record ReadSizes(int client, int upstream) {
  /** 64 KiB, the default {@code readBufferSize}. */
  public static final int DEFAULT = 64 * 1024;

  /** The largest read size accepted. */
  public static final int MAX = 1 << 20;
}
