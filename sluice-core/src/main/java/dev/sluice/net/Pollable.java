package dev.sluice.net;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Something registered with a loop's {@link Poller}: a connection or a listening socket. */
interface Pollable {
  /** The socket is ready for {@code readyOps} (a mask of {@link Poller}'s operation bits). */
  void onReady(int readyOps);

  /** {@link #onReady} threw: close or pause what failed, and only that. */
  void onUnexpectedFailure(RuntimeException e);

  /**
   * The kernel refused to watch the socket as asked (epoll: ENOSPC at {@code max_user_watches},
   * ENOMEM): an I/O failure of this socket alone, not a defect.
   */
  default void onInterestRefused(IOException e) {
    onUnexpectedFailure(new UncheckedIOException(e));
  }

  /** The loop is stopping: close now. */
  void closeForShutdown();
}
