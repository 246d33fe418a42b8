package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * The epoll poller registers each descriptor once, edge-triggered, and keeps its readiness: it
 * reports what is ready and wanted at every pass (as level-triggered readiness would), and forgets
 * a readiness only when a read or write showed it gone. These drive a poller directly with pipes (a
 * read end is readable once a byte is in it, a write end writable while it has room): readiness
 * learnt while not wanted, a reader that stops early, a drained reader and a full writer told again
 * only by the kernel, an end that stays told, a descriptor number reused, and a registration the
 * kernel refuses.
 */
class EpollInterestTest {
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment errno = Libc.newErrnoState(arena);
  private final MemorySegment scratch = arena.allocate(65536);
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
  @Timeout(60)
  void readinessLearntWhileNotWantedIsReportedOnceWantedWithoutWaiting() throws IOException {
    int[] pipe = pipeWithAByte();
    Recorder owner = new Recorder();
    poller.add(pipe[0], owner, 0);
    poller.poll(1000, owner); // the kernel tells of the byte; nobody wants it yet
    assertThat(owner.ready).isEmpty();

    poller.modify(pipe[0], Poller.READ);
    poller.poll(-1, owner); // no new edge comes: an infinite wait here would hang
    assertThat(owner.ready).containsExactly(Poller.READ);
  }

  @Test
  @Timeout(60)
  void aReaderThatStopsBeforeDrainingIsToldAgainAtTheNextPass() throws IOException {
    int[] pipe = pipeWithAByte();
    Recorder owner = readerToldOnce(pipe[0]);
    poller.poll(-1, owner); // the byte is still there and nothing said otherwise
    assertThat(owner.ready).containsExactly(Poller.READ, Poller.READ);
  }

  @Test
  void aDrainedReaderIsToldAgainOnlyWhenMoreArrives() throws IOException {
    int[] pipe = pipeWithAByte();
    Recorder owner = readerToldOnce(pipe[0]);
    assertThat(Libc.read(errno, pipe[0], scratch.address(), 16)).isEqualTo(1);
    poller.readDrained(pipe[0]);
    poller.poll(0, owner);
    assertThat(owner.ready).containsExactly(Poller.READ);

    writeAByte(pipe[1]);
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.READ, Poller.READ);
  }

  @Test
  @Timeout(60)
  void anEndBehindTheBytesAShortReadDrainedIsStillReported() throws IOException {
    int[] pipe = pipeWithAByte();
    Libc.close(pipe[1]); // the byte, then the end: the kernel tells of both at once
    open.remove(Integer.valueOf(pipe[1]));
    Recorder owner = readerToldOnce(pipe[0]);
    assertThat(Libc.read(errno, pipe[0], scratch.address(), 16)).isEqualTo(1);
    poller.readDrained(pipe[0]); // a short read: drained of bytes, but not of its end
    poller.poll(-1, owner); // no edge will come again: an infinite wait here would hang
    assertThat(owner.ready).containsExactly(Poller.READ, Poller.READ);
    assertThat(Libc.read(errno, pipe[0], scratch.address(), 16)).isZero();
  }

  @Test
  void aFullWriterIsToldWritableWhenRoomFrees() throws IOException {
    int[] pipe = newPipe();
    Recorder owner = new Recorder();
    poller.add(pipe[1], owner, Poller.WRITE);
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.WRITE);

    while (Libc.write(errno, pipe[1], scratch.address(), scratch.byteSize()) > 0) {
      // fill it up
    }
    assertThat(Libc.errno(errno)).isEqualTo(Libc.EAGAIN);
    poller.writeBlocked(pipe[1]);
    poller.poll(0, owner);
    assertThat(owner.ready).containsExactly(Poller.WRITE);

    while (Libc.read(errno, pipe[0], scratch.address(), scratch.byteSize()) > 0) {
      // empty it
    }
    poller.poll(1000, owner);
    assertThat(owner.ready).containsExactly(Poller.WRITE, Poller.WRITE);
  }

  @Test
  void aNumberClosedAndReusedStartsWithNothingReady() throws IOException {
    int[] first = pipeWithAByte();
    readerToldOnce(first[0]); // readable, and left so
    poller.remove(first[0]);
    Libc.close(first[0]);
    open.remove(Integer.valueOf(first[0]));

    int[] second = newPipe(); // the lowest free number: the one just closed; empty
    assertThat(second[0]).isEqualTo(first[0]);
    Recorder next = new Recorder();
    poller.add(second[0], next, Poller.READ);
    poller.poll(0, next);
    assertThat(next.ready).isEmpty();

    writeAByte(second[1]);
    poller.poll(1000, next);
    assertThat(next.ready).containsExactly(Poller.READ);
  }

  @Test
  void aRegistrationTheKernelRefusesFailsAloneAndWatchesNothing() throws IOException {
    int[] gone = pipeWithAByte();
    Libc.close(gone[0]); // a number no longer open: epoll_ctl fails with EBADF
    open.remove(Integer.valueOf(gone[0]));
    Recorder refused = new Recorder();
    assertThatThrownBy(() -> poller.add(gone[0], refused, Poller.READ))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("epoll_ctl");
    assertThat(poller.registrations()).isEmpty();

    int[] pipe = pipeWithAByte();
    Recorder fine = readerToldOnce(pipe[0]);
    assertThat(fine.ready).containsExactly(Poller.READ);
    assertThat(refused.ready).isEmpty();
  }

  /** An owner of {@code fd} that wants to read, after the pass in which the kernel told of it. */
  private Recorder readerToldOnce(int fd) throws IOException {
    Recorder owner = new Recorder();
    poller.add(fd, owner, Poller.READ);
    poller.poll(1000, owner);
    return owner;
  }

  private int[] newPipe() {
    MemorySegment fds = arena.allocate(8, 4);
    assertThat(Libc.pipe2(errno, fds.address(), Libc.O_NONBLOCK | Libc.O_CLOEXEC)).isZero();
    int[] ends = {fds.get(ValueLayout.JAVA_INT, 0), fds.get(ValueLayout.JAVA_INT, 4)};
    open.add(ends[0]);
    open.add(ends[1]);
    return ends;
  }

  private int[] pipeWithAByte() {
    int[] ends = newPipe();
    writeAByte(ends[1]);
    return ends;
  }

  private void writeAByte(int fd) {
    assertThat(Libc.write(errno, fd, scratch.address(), 1)).isEqualTo(1);
  }

  /** An owner and a sink at once: what it was told. */
  private static class Recorder implements Pollable, Poller.ReadySink {
    final List<Integer> ready = new ArrayList<>();
    final List<RuntimeException> failures = new ArrayList<>();

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
