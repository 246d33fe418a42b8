package dev.sluice.proxy.forward;

import dev.sluice.net.Connection;
import java.nio.ByteBuffer;

/**
 * The raw relay's kernel path: while a leg streams, its reads go to the peer by splice(2), never
 * through the loop's slab. The transport decides whether it can (both sockets of its own, on one
 * loop, nothing queued at the peer, a pipe free in the loop's bounded pool); when it cannot, the
 * read is an ordinary one and goes through {@link Leg#forward}. What the peer does not take at once
 * comes back copied out at exact size and is queued, charged to the budget and paused on like any
 * copy, so a stalled peer holds no pipe.
 */
final class SpliceForward {
  /**
   * A read at least this big says the leg streams: its socket had a backlog. Smaller exchanges
   * (requests, replies) never take a pipe: for them splice's two calls cost more than a copy.
   */
  static final int STREAMING_READ = 16 * 1024;

  private SpliceForward() {}

  /** The connection {@code from}'s next read may be spliced to, or null. */
  static Connection target(Leg from) {
    if (from.lastReadBytes() < STREAMING_READ
        || from.pausedForPeer()
        || !from.pair().forwarding()) {
      return null;
    }
    return from.peer().connection();
  }

  /** A read of {@code from}'s went to {@code target} inside the kernel, but for {@code rest}. */
  static void onSpliced(Leg from, Connection target, ByteBuffer rest) {
    if (!target.isOpen() || !from.pair().forwarding()) {
      from.pair().undeliverable(from); // the peer's socket failed under the splice
      return;
    }
    if (rest != null) {
      from.sendCopy(target, rest);
    }
  }
}
