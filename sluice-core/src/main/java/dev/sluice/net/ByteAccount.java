package dev.sluice.net;

/**
 * Where a handler that holds bytes between reads (a {@link DetectingHandler} until its decision)
 * accounts for them: an application that bounds the bytes it holds across all its connections (a
 * proxy's bytes in flight) charges them there. Called on the connection's loop; every byte charged
 * is released exactly once.
 */
public interface ByteAccount {

  /** Accounts for nothing. */
  ByteAccount NONE =
      new ByteAccount() {
        @Override
        public void charge(long bytes) {}

        @Override
        public void release(long bytes) {}
      };

  /** {@code bytes} more are held. */
  void charge(long bytes);

  /** {@code bytes} charged before are held no longer. */
  void release(long bytes);
}
