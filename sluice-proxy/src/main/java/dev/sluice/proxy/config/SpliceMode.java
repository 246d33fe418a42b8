package dev.sluice.proxy.config;

/**
 * Whether the raw relay may forward plaintext TCP to TCP by splice(2) (the epoll transport only):
 * {@code auto} splices while a pair streams and a pipe of its loop's pool is free, {@code off}
 * copies every read through the loop.
 */
public enum SpliceMode {
  AUTO,
  OFF;

  /** How it is written in the configuration. */
  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
