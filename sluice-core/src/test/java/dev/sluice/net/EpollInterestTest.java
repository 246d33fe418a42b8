package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The epoll poller hands interest changes to the kernel only before it waits, as each socket's net
 * change. These drive a poller directly with a pipe (readable once a byte is in it): a change and
 * its undoing in one pass, a removal that must take effect, a descriptor number closed and reused
 * before the wait, and a change the kernel refuses.
 */
class EpollInterestTest {
  private final Arena arena = Arena.ofConfined();
  private EpollPoller poller;
  private final List<Integer> open = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    poller = new EpollPoller();
  }

  @AfterEach
  void stop() {
    open.forEach(Libc::close);
    poller.close();
    arena.close();
  }

  @Test
  void aPauseUndoneInTheSamePassStillReportsTheBytes() throws IOException {
    int[] pipe = pipeWithAByte();
    Recorder owner = new Recorder();
    poller.add(pipe[0], owner, Poller.READ);
    poller.modify(pipe[0], 0);
    poller.modify(pipe[0], Poller.READ);
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.READ);
  }

  @Test
  void aSocketWithNoInterestIsNotReportedFromTheNextWaitOn() throws IOException {
    int[] pipe = pipeWithAByte();
    Recorder owner = new Recorder();
    poller.add(pipe[0], owner, Poller.READ);
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.READ);

    poller.modify(pipe[0], 0);
    poller.poll(0, owner); // level-triggered: still readable, but no longer in the set
    assertThat(owner.ready).containsExactly(Poller.READ);

    poller.modify(pipe[0], Poller.READ);
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.READ, Poller.READ);
  }

  @Test
  void aNumberClosedAndReusedBeforeTheWaitIsRegisteredAnew() throws IOException {
    int[] first = pipeWithAByte();
    Recorder old = new Recorder();
    poller.add(first[0], old, Poller.READ);
    poller.poll(1000, old); // in the kernel's set now
    poller.remove(first[0]);
    Libc.close(first[0]);
    open.remove(Integer.valueOf(first[0]));

    int[] second = pipeWithAByte(); // the lowest free number: the one just closed
    assertThat(second[0]).isEqualTo(first[0]);
    Recorder next = new Recorder();
    poller.add(second[0], next, Poller.READ);
    poller.poll(1000, next);
    assertThat(next.ready).containsExactly(Poller.READ);
    assertThat(next.refusals).isEmpty();
  }

  @Test
  void aChangeTheKernelRefusesReachesItsOwnerAlone() throws IOException {
    int[] gone = pipeWithAByte();
    int[] pipe = pipeWithAByte();
    Libc.close(gone[0]); // a number no longer open: epoll_ctl fails with EBADF
    open.remove(Integer.valueOf(gone[0]));
    Recorder refused = new Recorder();
    poller.add(gone[0], refused, Poller.READ);
    Recorder fine = new Recorder();
    poller.add(pipe[0], fine, Poller.READ);

    poller.poll(1000, fine);

    assertThat(refused.refusals).singleElement().asString().contains("epoll_ctl");
    assertThat(fine.ready).containsExactly(Poller.READ);
    assertThat(fine.refusals).isEmpty();
  }

  private int[] pipeWithAByte() {
    MemorySegment fds = arena.allocate(8, 4);
    MemorySegment errno = Libc.newErrnoState(arena);
    assertThat(Libc.pipe2(errno, fds.address(), Libc.O_NONBLOCK | Libc.O_CLOEXEC)).isZero();
    int[] ends = {fds.get(ValueLayout.JAVA_INT, 0), fds.get(ValueLayout.JAVA_INT, 4)};
    open.add(ends[0]);
    open.add(ends[1]);
    MemorySegment one = arena.allocate(1);
    assertThat(Libc.write(errno, ends[1], one.address(), 1)).isEqualTo(1);
    return ends;
  }

  /**
   * An owner that asks again when refused is tried once per pass, and the pass does not wait: it
   * may have queued work the loop chose its wait without (an infinite wait here would hang).
   */
  @Test
  @Timeout(60)
  void aRefusedOwnerAskingAgainIsTriedOncePerPassAndThePassDoesNotWait() throws IOException {
    int[] gone = pipeWithAByte();
    Libc.close(gone[0]);
    open.remove(Integer.valueOf(gone[0]));
    Recorder stubborn =
        new Recorder() {
          @Override
          public void onInterestRefused(IOException e) {
            super.onInterestRefused(e);
            poller.modify(gone[0], Poller.READ);
          }
        };
    poller.add(gone[0], stubborn, Poller.READ);

    poller.poll(-1, stubborn);
    assertThat(stubborn.refusals).hasSize(1);
    poller.poll(-1, stubborn);
    assertThat(stubborn.refusals).hasSize(2);
  }

  /** An owner and a sink at once: what it was told. */
  private static class Recorder implements Pollable, Poller.ReadySink {
    final List<Integer> ready = new ArrayList<>();
    final List<RuntimeException> failures = new ArrayList<>();
    final List<IOException> refusals = new ArrayList<>();

    @Override
    public void onInterestRefused(IOException e) {
      refusals.add(e);
    }

    @Override
    public void ready(Pollable pollable, int readyOps) {
      ((Recorder) pollable).ready.add(readyOps);
    }

    @Override
    public void onReady(int readyOps) {
      ready.add(readyOps);
    }

    @Override
    public void onUnexpectedFailure(RuntimeException e) {
      failures.add(e);
    }

    @Override
    public void closeForShutdown() {}
  }
}
