package dev.sluice.net;

import dev.sluice.internal.LeakRegistry;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One loop's pipes for splice(2), at most {@link TransportConfig#splicePipesPerLoop}: a pipe costs
 * two descriptors (and, while it holds bytes, kernel pages), so only a connection that is streaming
 * holds one, and it gives it back when it stops. A pipe is empty whenever the loop is between
 * events: what a read put in it went on to the target, or was copied out at exact size, before the
 * read's callback; so it may serve anyone next. Loop thread only; closed when the loop stops, with
 * the pipes still held.
 *
 * <p>Why the pipe must be empty before every read: splice from a socket into a pipe fails with
 * EAGAIN both when the socket has nothing and when the pipe is full. An empty pipe is never full,
 * so here EAGAIN means the socket is drained, and the kernel tells when it has more. A short splice
 * proves nothing (the pipe may have run out of slots), so the socket stays ready after one.
 */
final class SplicePipes implements AutoCloseable {
  static final LoopLocal<SplicePipes> SLOT =
      new LoopLocal<>(loop -> new SplicePipes(loop.config().splicePipesPerLoop()));

  private final int max;
  private final ArrayDeque<Pipe> free = new ArrayDeque<>();
  private final List<Pipe> all = new ArrayList<>();
  private boolean closed;

  SplicePipes(int max) {
    this.max = max;
  }

  /** A free pipe, a new one while fewer than the bound exist, or null. */
  Pipe acquire(EpollPoller.Scratch scratch) throws IOException {
    Pipe pipe = free.poll();
    if (pipe != null || closed) {
      return pipe;
    }
    if (all.size() >= max) {
      return null; // all held by streaming connections: this one copies
    }
    MemorySegment fds = scratch.value;
    if (Libc.pipe2(scratch.errno, scratch.valueAddress, Libc.O_NONBLOCK | Libc.O_CLOEXEC) < 0) {
      throw Libc.error("pipe2", scratch.errno());
    }
    pipe = new Pipe(this, fds.get(ValueLayout.JAVA_INT, 0), fds.get(ValueLayout.JAVA_INT, 4));
    all.add(pipe);
    return pipe;
  }

  /** Pipes lent to connections now. */
  int held() {
    return all.size() - free.size();
  }

  /** Takes back an empty pipe (closes it if this pool is closed already). */
  void release(Pipe pipe) {
    if (closed) {
      pipe.close();
    } else {
      free.push(pipe); // the most recently used first: its pages are likely still there
    }
  }

  /** Closes a pipe whose content is unknown (a call on it failed): it must serve no one else. */
  void discard(Pipe pipe) {
    all.remove(pipe);
    free.remove(pipe);
    pipe.close();
  }

  @Override
  public void close() {
    closed = true;
    for (Pipe pipe : all) {
      pipe.close();
    }
    all.clear();
    free.clear();
  }

  /** Both ends of one non-blocking pipe. */
  static final class Pipe {
    /** The pool it goes back to (closed with it, so never one made after the loop stopped). */
    final SplicePipes pool;

    private final int readFd;
    private final int writeFd;
    private final Object leakToken;
    private boolean closed;

    private Pipe(SplicePipes pool, int readFd, int writeFd) {
      this.pool = pool;
      this.readFd = readFd;
      this.writeFd = writeFd;
      this.leakToken = LeakRegistry.track("splice pipe fds " + readFd + "," + writeFd);
    }

    /**
     * Moves up to {@code max} bytes from socket {@code from} into this (empty) pipe: the bytes
     * moved, 0 when the socket has none now, -1 at its end of input.
     */
    long fill(EpollPoller.Scratch scratch, int from, int max) throws IOException {
      while (true) {
        long n =
            Libc.splice(
                scratch.errno, from, writeFd, max, Libc.SPLICE_F_MOVE | Libc.SPLICE_F_NONBLOCK);
        if (n > 0) {
          return n;
        }
        if (n == 0) {
          return -1;
        }
        int errno = scratch.errno();
        if (errno == Libc.EAGAIN) {
          return 0; // the pipe is empty, so it is the socket that has nothing
        }
        if (errno != Libc.EINTR) {
          throw Libc.error("splice", errno);
        }
      }
    }

    /**
     * Moves up to {@code length} bytes of this pipe to socket {@code to}, until it would block: the
     * bytes moved (EAGAIN here can only be the socket's, as the pipe holds bytes).
     */
    long drainTo(EpollPoller.Scratch scratch, int to, long length) throws IOException {
      long moved = 0;
      while (moved < length) {
        long n =
            Libc.splice(
                scratch.errno,
                readFd,
                to,
                length - moved,
                Libc.SPLICE_F_MOVE | Libc.SPLICE_F_NONBLOCK);
        if (n > 0) {
          moved += n;
          continue;
        }
        int errno = n == 0 ? Libc.EAGAIN : scratch.errno();
        if (errno == Libc.EAGAIN) {
          break;
        }
        if (errno != Libc.EINTR) {
          throw Libc.error("splice", errno);
        }
      }
      return moved;
    }

    /**
     * Reads the {@code length} bytes left in this pipe into a new buffer of exactly that size,
     * through {@code staging}; the pipe is empty after.
     */
    ByteBuffer copyOut(EpollPoller.Scratch scratch, ByteBuffer staging, int length)
        throws IOException {
      byte[] rest = new byte[length];
      long address = EpollPoller.Scratch.address(staging);
      int done = 0;
      while (done < length) {
        int want = Math.min(staging.capacity(), length - done);
        long n = Libc.read(scratch.errno, readFd, address, want);
        if (n > 0) {
          staging.get(0, rest, done, (int) n);
          done += (int) n;
          continue;
        }
        int errno = n == 0 ? Libc.EAGAIN : scratch.errno();
        if (errno != Libc.EINTR) {
          throw Libc.error("read from a splice pipe, " + (length - done) + " bytes short", errno);
        }
      }
      return ByteBuffer.wrap(rest);
    }

    private void close() {
      if (!closed) {
        closed = true;
        Libc.close(readFd);
        Libc.close(writeFd);
        LeakRegistry.untrack(leakToken);
      }
    }

    @Override
    public String toString() {
      return "pipe " + readFd + "/" + writeFd;
    }
  }
}
