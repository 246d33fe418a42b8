package dev.sluice.net;

import dev.sluice.internal.LeakRegistry;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Linux epoll through java.lang.foreign: one epoll instance per loop, an eventfd to wake it, raw
 * file descriptors as ints, and the loop's preallocated native scratch (events, iovecs, socket
 * addresses, option values, errno) so that no call allocates.
 *
 * <p><b>Edge-triggered, with readiness kept here.</b> Each socket enters the epoll set once, for
 * input, output and peer hang-up with {@code EPOLLET}, and never changes there: the kernel tells of
 * each change (bytes arrived, room freed, an end or an error) and this poller remembers it as the
 * socket's readiness, readable or writable. A socket forgets its readiness only on evidence: a read
 * that returned EAGAIN or fewer bytes than asked (not once the peer sent urgent data: see {@link
 * #URGENT}), a write that took EAGAIN or only part (both mean the next change will be told), a
 * connect not yet done; never once the input ended or the socket failed, which the kernel tells
 * once (a FIN can sit behind the bytes a short read drained). Each pass reports what is ready
 * <i>and</i> wanted, so the connection code above the seam sees level-triggered readiness, as NIO
 * gives it: a reader that stopped early for fairness, or resumes after a pause, is told again at
 * the next pass (which then does not wait), with no system call. What it saves are interest
 * changes: a proxied connection's interest goes up and down (an accepted client is paused until its
 * upstream connects, a socket asks for output while connecting and for input after, an ended input
 * is dropped) and each was an {@code epoll_ctl}; here there are none after the first. An interest
 * of none needs nothing either: a hang-up is told once, not at every wait.
 */
final class EpollPoller implements Poller {
  private static final int MAX_EVENTS = 256;
  private static final java.util.concurrent.atomic.LongAdder INTERRUPTED_WAITS =
      new java.util.concurrent.atomic.LongAdder();
  private static final long WAKE_TOKEN = -1;

  /** What every socket is registered for, once. */
  private static final int WATCHED =
      Libc.EPOLLIN | Libc.EPOLLPRI | Libc.EPOLLOUT | Libc.EPOLLRDHUP | Libc.EPOLLET;

  /** The eventfd increment every wake-up writes: constant, so any thread may pass it. */
  private static final MemorySegment ONE;

  static {
    ONE = Arena.global().allocate(ValueLayout.JAVA_LONG);
    ONE.set(ValueLayout.JAVA_LONG, 0, 1L);
  }

  private final Arena arena = Arena.ofShared();
  final Scratch scratch;
  private final MemorySegment events;
  private final long eventsAddress;
  private final int epfd;
  private final int wakeFd;

  /**
   * Held while the eventfd is written or closed: a wake-up from another thread (a task queued, a
   * second shutdown) that came after the close would write to whatever descriptor has its number by
   * then.
   */
  private final Object wakeLock = new Object();

  private boolean wakeFdClosed;

  private final Object leakToken;
  private Pollable[] owners = new Pollable[1024];

  /**
   * Each socket's state in one int: what it wants (bits 0-7, {@link Poller}'s operations), what it
   * is ready for ({@link #READABLE}, {@link #WRITABLE}), and whether it is in {@link #due}.
   */
  private int[] states = new int[1024];

  private static final int WANTED = 0xff;
  private static final int READABLE = 1 << 8;
  private static final int WRITABLE = 1 << 9;

  /**
   * The input ended or the socket failed (a FIN, a hang-up, an error): readable from then on, as a
   * read returns at once. Kept, because the kernel tells of an end once: a read that drains the
   * bytes before a FIN returns less than asked, and the FIN behind them is not told again.
   */
  private static final int READ_ENDED = 1 << 10;

  /** The socket hung up or failed: writable from then on (a write returns its error at once). */
  private static final int WRITE_ENDED = 1 << 11;

  /**
   * The peer sent TCP urgent data (EPOLLPRI), kept while the socket is registered. The kernel ends
   * a read short at the urgent mark though bytes wait behind it, and a splice stops there for good:
   * from then on only a read that finds nothing counts as drained, and nothing is spliced.
   */
  private static final int URGENT = 1 << 12;

  private static final int DUE = 1 << 16;

  /** Sockets to look at in the next pass (ready and wanted, as far as known), each once. */
  private int[] due = new int[64];

  private int dueCount;
  private int registered;

  EpollPoller() throws IOException {
    scratch = new Scratch(arena);
    events = arena.allocate(Libc.EVENT_SIZE * MAX_EVENTS, 8);
    eventsAddress = events.address();
    epfd = Libc.epollCreate1(scratch.errno, Libc.EPOLL_CLOEXEC);
    if (epfd < 0) {
      int errno = scratch.errno();
      arena.close();
      throw Libc.error("epoll_create1", errno);
    }
    wakeFd = Libc.eventfd(scratch.errno, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
    if (wakeFd < 0) {
      int errno = scratch.errno();
      Libc.close(epfd);
      arena.close();
      throw Libc.error("eventfd", errno);
    }
    // Level-triggered: the counter is read back to zero at each wake-up.
    Libc.setEvent(scratch.event, Libc.EPOLLIN, WAKE_TOKEN);
    if (Libc.epollCtl(scratch.errno, epfd, Libc.EPOLL_CTL_ADD, wakeFd, scratch.eventAddress) < 0) {
      int errno = scratch.errno();
      Libc.close(wakeFd);
      Libc.close(epfd);
      arena.close();
      throw Libc.error("epoll_ctl", errno);
    }
    leakToken = LeakRegistry.track("epoll " + epfd + " and eventfd " + wakeFd);
  }

  /** Waits a signal interrupted (EINTR), in every loop of the JVM so far. */
  static long interruptedWaits() {
    return INTERRUPTED_WAITS.sum();
  }

  @Override
  public Transport transport() {
    return Transport.EPOLL;
  }

  @Override
  public void poll(long timeoutMillis, ReadySink sink) throws IOException {
    // A socket known ready and wanted is reported without waiting for the kernel's word.
    int timeout = dueCount > 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
    int n = Libc.epollWait(scratch.errno, epfd, eventsAddress, MAX_EVENTS, timeout);
    if (n < 0) {
      int errno = scratch.errno();
      if (errno == Libc.EINTR) {
        INTERRUPTED_WAITS.increment();
        return; // a signal: the loop looks at its tasks and timers and waits again
      }
      throw Libc.error("epoll_wait", errno);
    }
    for (int i = 0; i < n; i++) {
      long token = Libc.eventData(events, i);
      if (token == WAKE_TOKEN) {
        Libc.read(scratch.errno, wakeFd, scratch.valueAddress, 8); // reset the counter
        continue;
      }
      int fd = (int) token;
      if (fd >= owners.length || owners[fd] == null) {
        continue; // closed by an earlier event of this batch
      }
      int flags = Libc.eventFlags(events, i);
      int ready = 0;
      if ((flags & Libc.EPOLLIN) != 0) {
        ready |= READABLE;
      }
      if ((flags & Libc.EPOLLPRI) != 0) {
        ready |= READABLE | URGENT; // read again, by copying: it steps over the mark
      }
      if ((flags & (Libc.EPOLLERR | Libc.EPOLLHUP | Libc.EPOLLRDHUP)) != 0) {
        ready |= READABLE | READ_ENDED;
      }
      if ((flags & Libc.EPOLLOUT) != 0) {
        ready |= WRITABLE;
      }
      if ((flags & (Libc.EPOLLERR | Libc.EPOLLHUP)) != 0) {
        ready |= WRITABLE | WRITE_ENDED;
      }
      states[fd] |= ready;
      queueIfReported(fd);
    }
    // Those queued before the callbacks: what they queue (a changed interest, a reader that
    // stopped before it drained its socket) is the next pass's.
    int count = dueCount;
    for (int i = 0; i < count; i++) {
      int fd = due[i];
      states[fd] &= ~DUE;
      Pollable owner = owners[fd];
      int ops = owner == null ? 0 : reported(states[fd]);
      if (ops != 0) {
        sink.ready(owner, ops);
        if (owners[fd] == owner) {
          queueIfReported(fd);
        }
      }
    }
    System.arraycopy(due, count, due, 0, dueCount - count);
    dueCount -= count;
  }

  /** The operations a socket in {@code state} is reported for: those it wants and is ready for. */
  private static int reported(int state) {
    int ready = 0;
    if ((state & READABLE) != 0) {
      ready |= READ | ACCEPT;
    }
    if ((state & WRITABLE) != 0) {
      ready |= WRITE | CONNECT;
    }
    return state & WANTED & ready;
  }

  private void queueIfReported(int fd) {
    int state = states[fd];
    if ((state & DUE) == 0 && reported(state) != 0) {
      if (dueCount == due.length) {
        due = Arrays.copyOf(due, dueCount * 2);
      }
      due[dueCount++] = fd;
      states[fd] = state | DUE;
    }
  }

  @Override
  public void wakeup() {
    synchronized (wakeLock) {
      if (!wakeFdClosed) {
        Libc.wakeWrite(wakeFd, ONE.address());
      }
    }
  }

  @Override
  public List<Pollable> registrations() {
    List<Pollable> all = new ArrayList<>(registered);
    for (Pollable owner : owners) {
      if (owner != null) {
        all.add(owner);
      }
    }
    return all;
  }

  @Override
  public StreamSocket openStream(SocketAddress remote) throws IOException {
    return EpollStreamSocket.open(scratch, SockAddr.family(remote));
  }

  /**
   * Starts watching {@code fd} for {@code ops} on behalf of {@code owner}: its one {@code
   * epoll_ctl}. The kernel's refusal (ENOSPC at {@code max_user_watches}, ENOMEM) is thrown.
   */
  void add(int fd, Pollable owner, int ops) throws IOException {
    if (fd >= owners.length) {
      int size = Math.max(fd + 1, owners.length * 2);
      owners = Arrays.copyOf(owners, size);
      states = Arrays.copyOf(states, size);
    }
    Libc.setEvent(scratch.event, WATCHED, fd);
    if (Libc.epollCtl(scratch.errno, epfd, Libc.EPOLL_CTL_ADD, fd, scratch.eventAddress) < 0) {
      throw Libc.error("epoll_ctl", scratch.errno());
    }
    owners[fd] = owner;
    states[fd] = (states[fd] & DUE) | ops; // a reused number: nothing known ready yet
    registered++;
  }

  /** Changes what {@code fd} is reported for, from the next pass on. No system call. */
  void modify(int fd, int ops) {
    states[fd] = (states[fd] & ~WANTED) | ops;
    queueIfReported(fd);
  }

  /** A read of {@code fd} showed it has nothing more for now: the kernel tells when it has. */
  void readDrained(int fd) {
    if ((states[fd] & READ_ENDED) == 0) {
      states[fd] &= ~READABLE;
    }
  }

  /**
   * A read of {@code fd} returned fewer bytes than asked: it is drained, unless its peer sent
   * urgent data (then the read may have ended at the urgent mark).
   */
  void readShort(int fd) {
    if ((states[fd] & URGENT) == 0) {
      readDrained(fd);
    }
  }

  /** Whether {@code fd}'s peer has sent urgent data since it was registered. */
  boolean urgent(int fd) {
    return (states[fd] & URGENT) != 0;
  }

  /** A write to {@code fd} showed it full (or a connect not done): the kernel tells when not. */
  void writeBlocked(int fd) {
    if ((states[fd] & WRITE_ENDED) == 0) {
      states[fd] &= ~WRITABLE;
    }
  }

  /** Forgets {@code fd}, which its owner is about to close (closing takes it out of the set). */
  void remove(int fd) {
    if (fd < owners.length && owners[fd] != null) {
      owners[fd] = null;
      states[fd] &= DUE; // a stale entry in the due list is skipped
      registered--;
    }
  }

  @Override
  public void close() {
    synchronized (wakeLock) {
      wakeFdClosed = true;
      Libc.close(wakeFd);
    }
    Libc.close(epfd);
    LeakRegistry.untrack(leakToken);
    arena.close();
  }

  /**
   * One loop's native scratch memory for system calls, preallocated: errno, one epoll_event, an
   * iovec array and msghdr for gathering writes, a socket address with its length, and an option
   * value. Loop thread only (or one thread's short use, when a listener binds).
   */
  static final class Scratch {
    static final int IOV_MAX = 64;
    private static final int SOCKADDR_SIZE = 128;

    final MemorySegment errno;
    final MemorySegment event;
    final long eventAddress;
    final MemorySegment iovecs;
    final long iovecsAddress;
    final MemorySegment msghdr;
    final long msghdrAddress;
    final MemorySegment sockaddr;
    final long sockaddrAddress;
    final MemorySegment length;
    final long lengthAddress;
    final MemorySegment value;
    final long valueAddress;

    Scratch(Arena arena) {
      errno = Libc.newErrnoState(arena);
      event = arena.allocate(16, 8);
      eventAddress = event.address();
      iovecs = arena.allocate(16L * IOV_MAX, 8);
      iovecsAddress = iovecs.address();
      msghdr = arena.allocate(56, 8);
      msghdrAddress = msghdr.address();
      msghdr.set(ValueLayout.JAVA_LONG, 16, iovecsAddress); // msg_iov; the rest stays zero
      sockaddr = arena.allocate(SOCKADDR_SIZE, 8);
      sockaddrAddress = sockaddr.address();
      length = arena.allocate(ValueLayout.JAVA_INT);
      lengthAddress = length.address();
      value = arena.allocate(16, 8);
      valueAddress = value.address();
    }

    int errno() {
      return Libc.errno(errno);
    }

    private ByteBuffer lastRead;
    private long lastReadBase;

    /**
     * The native address of {@code buffer}'s index 0. Reads land in the loop's slab, the same
     * buffer time after time, so its address is remembered (one loop-owned buffer).
     */
    long readAddress(ByteBuffer buffer) {
      if (buffer != lastRead) {
        lastReadBase = address(buffer);
        lastRead = buffer;
      }
      return lastReadBase;
    }

    /**
     * The native address of a direct {@code buffer}'s index 0 for a write: the loop's slab when a
     * forwarder writes what it just read (remembered, as for reads), any other buffer looked up
     * each time, so that no caller's buffer is held here after its write.
     */
    long writeAddress(ByteBuffer buffer) {
      return buffer == lastRead ? lastReadBase : address(buffer);
    }

    /** The native address of a direct {@code buffer}'s index 0. */
    static long address(ByteBuffer buffer) {
      if (!buffer.isDirect()) {
        throw new IllegalArgumentException("heap buffers reach a socket through staging");
      }
      MemorySegment segment = MemorySegment.ofBuffer(buffer);
      // What the JDK's channels check before they touch a buffer: its memory is this thread's to
      // use, and still there.
      if (!segment.isAccessibleBy(Thread.currentThread())) {
        throw new WrongThreadException("the buffer's memory belongs to another thread");
      }
      if (!segment.scope().isAlive()) {
        throw new IllegalStateException("the buffer's memory is already freed");
      }
      return segment.address() - buffer.position();
    }

    /** Sets the address length in/out parameter to the whole address buffer. */
    long resetLength() {
      length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_SIZE);
      return lengthAddress;
    }

    int lengthValue() {
      return length.get(ValueLayout.JAVA_INT, 0);
    }

    void setInt(int fd, int level, int name, int v) throws IOException {
      value.set(ValueLayout.JAVA_INT, 0, v);
      if (Libc.setsockopt(errno, fd, level, name, valueAddress, 4) < 0) {
        throw Libc.error("setsockopt", errno());
      }
    }

    int getInt(int fd, int level, int name) throws IOException {
      length.set(ValueLayout.JAVA_INT, 0, 4);
      if (Libc.getsockopt(errno, fd, level, name, valueAddress, lengthAddress) < 0) {
        throw Libc.error("getsockopt", errno());
      }
      return value.get(ValueLayout.JAVA_INT, 0);
    }
  }
}
