package dev.sluice.memory;

import dev.sluice.internal.LentBytes;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A zero-copy view of one read, lent to a callback and valid only until it returns.
 *
 * <p>Owners that consume bytes inside the callback (a forwarder writing them straight to a peer
 * with {@code writeTransient}) use {@link #buffer()}. Owners that keep bytes call {@link #take()}
 * (the copy-out rule: exact-size copy up to the threshold, whole-slab hand-off above it) or {@link
 * #copy()} (always an exact-size copy). One view object per loop is reused for every read: using it
 * after its callback returned, or from another thread, throws.
 */
public sealed interface BorrowedBytes permits LentBytes {

  /** Number of bytes read. */
  int length();

  /**
   * The bytes: position 0 of the read at first, limit at its end. The caller may move the position
   * (for example by writing the buffer to a channel); it must not keep the buffer after the
   * callback.
   */
  ByteBuffer buffer();

  /**
   * Takes ownership of the whole read under the copy-out rule and ends this view. Ignores any
   * position the caller set on {@link #buffer()}.
   */
  Chunk take();

  /** An exact-size heap copy of the whole read; the view stays valid. */
  HeapChunk copy();

  /** An exact-size heap copy of what is left between the buffer's position and limit. */
  HeapChunk copyRemaining();

  /**
   * Lends {@code bytes} (between position and limit) to {@code use} as a borrowed read, valid only
   * during the call: how a handler that holds bytes of its own (a protocol detector replaying a
   * prefix, a test feeding a handler) passes them on under the same rules as a socket read. {@link
   * #take()} on such a view always copies.
   */
  static void lend(ByteBuffer bytes, Consumer<? super BorrowedBytes> use) {
    LentBytes view = LentBytes.detached();
    view.open(bytes);
    try {
      use.accept(view);
    } finally {
      view.close();
    }
  }
}
