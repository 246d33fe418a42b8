package dev.sluice.net;

/** Something registered with a loop's {@link Poller}: a connection or a listening socket. */
interface Pollable {
  /** The socket is ready for {@code readyOps} (a mask of {@link Poller}'s operation bits). */
  void onReady(int readyOps);

  /** {@link #onReady} threw: close or pause what failed, and only that. */
  void onUnexpectedFailure(RuntimeException e);

  /** The loop is stopping: close now. */
  void closeForShutdown();
}
