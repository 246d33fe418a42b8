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
 * <p><b>Level-triggered.</b> The connection code above the seam is the same on both transports, and
 * it was written for NIO's level-triggered readiness: it reads at most {@code maxReadsPerEvent}
 * times per event and stops early on a short read, pauses reading by dropping the interest, and
 * asks for writability only while its queue holds bytes. Level-triggered epoll keeps all of that
 * true with nothing to re-arm: a socket left with unread bytes (fairness, a paused reader) is
 * reported again by the next wait. Edge-triggered would save the {@code epoll_ctl} of each interest
 * change, but then every read must run to EAGAIN or be re-queued by hand, or a socket with bytes
 * left would never be reported again; interest changes here are rare (a full socket, a pause), so
 * the saving is small next to that risk. As the JDK's selector does, a socket with no interest is
 * removed from the epoll set: the kernel reports errors and hang-ups even without interest, and
 * level-triggered that would spin.
 *
 * <p><b>Interest changes wait for the next wait.</b> {@link #modify} records what a socket wants;
 * {@link #poll} hands the kernel only the net change of each socket before it waits, as HAProxy's
 * pollers do. A proxied connection's interest goes up and down within one pass (an accepted client
 * is paused until its upstream connects; a socket stops reading at its end and is closed), and each
 * of those was an {@code epoll_ctl}: seven per proxied connection, three now. Nothing is lost in
 * between: readiness is only read by the wait, and closing a socket takes it out of the set.
 */
final class EpollPoller implements Poller {
  private static final int MAX_EVENTS = 256;
  private static final java.util.concurrent.atomic.LongAdder INTERRUPTED_WAITS =
      new java.util.concurrent.atomic.LongAdder();
  private static final long WAKE_TOKEN = -1;

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
  private final Object leakToken;
  private Pollable[] owners = new Pollable[1024];

  /**
   * Each socket's interest in one int (no array more per descriptor than before changes waited):
   * what it wants now (bits 0-7), what the kernel's epoll set holds (bits 8-15, 0: not in the set),
   * and whether it is in {@link #changed} (bit 16).
   */
  private int[] interests = new int[1024];

  private static final int IN_KERNEL_SHIFT = 8;
  private static final int OPS = 0xff;
  private static final int QUEUED = 1 << 16;

  /** Sockets whose interest changed since the last wait, each once. */
  private int[] changed = new int[64];

  private int changes;
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
    // An owner told of a refused change may have closed and queued work or timers the loop chose
    // its wait without: then look and come back at once.
    boolean refused = applyChanges();
    int timeout = refused ? 0 : (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
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
      Pollable owner = fd < owners.length ? owners[fd] : null;
      if (owner == null) {
        continue; // closed by an earlier event of this batch
      }
      int flags = Libc.eventFlags(events, i);
      int interest = interests[fd] & OPS;
      int ready = 0;
      if ((flags & (Libc.EPOLLIN | Libc.EPOLLERR | Libc.EPOLLHUP | Libc.EPOLLRDHUP)) != 0) {
        ready |= interest & (READ | ACCEPT);
      }
      if ((flags & (Libc.EPOLLOUT | Libc.EPOLLERR | Libc.EPOLLHUP)) != 0) {
        ready |= interest & (WRITE | CONNECT);
      }
      if (ready != 0) {
        sink.ready(owner, ready);
      }
    }
  }

  @Override
  public void wakeup() {
    Libc.wakeWrite(wakeFd, ONE.address());
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

  /** Starts watching {@code fd} for {@code ops} on behalf of {@code owner}. */
  void add(int fd, Pollable owner, int ops) {
    if (fd >= owners.length) {
      int size = Math.max(fd + 1, owners.length * 2);
      owners = Arrays.copyOf(owners, size);
      interests = Arrays.copyOf(interests, size);
    }
    owners[fd] = owner;
    interests[fd] &= QUEUED; // a reused number: not in the kernel's set
    registered++;
    modify(fd, ops);
  }

  /**
   * Changes what {@code fd} is watched for, from the next wait on; with no interest it leaves the
   * epoll set then. A change the kernel refuses reaches the owner's {@link
   * Pollable#onInterestRefused}.
   */
  void modify(int fd, int ops) {
    int state = interests[fd];
    interests[fd] = (state & ~OPS) | ops | QUEUED;
    if ((state & QUEUED) == 0) {
      if (changes == changed.length) {
        changed = Arrays.copyOf(changed, changes * 2);
      }
      changed[changes++] = fd;
    }
  }

  /** Forgets {@code fd}, which its owner is about to close (closing takes it out of the set). */
  void remove(int fd) {
    if (fd < owners.length && owners[fd] != null) {
      owners[fd] = null;
      interests[fd] &= QUEUED; // nothing wanted, and closing takes it out of the kernel's set
      registered--;
    }
  }

  /**
   * Hands the kernel each socket's net change, those queued before this call only: an owner told of
   * a refusal may queue more (itself again, even), which wait for the next pass. Returns whether
   * any owner was told.
   */
  private boolean applyChanges() {
    boolean refused = false;
    int due = changes;
    for (int i = 0; i < due; i++) {
      int fd = changed[i];
      int state = interests[fd] & ~QUEUED;
      interests[fd] = state;
      int want = state & OPS;
      int have = state >>> IN_KERNEL_SHIFT;
      Pollable owner = owners[fd];
      if (owner == null || want == have) {
        continue; // closed since (a reused number is registered anew), or back where it was
      }
      int op;
      if (want == 0) {
        op = Libc.EPOLL_CTL_DEL;
      } else {
        op = have == 0 ? Libc.EPOLL_CTL_ADD : Libc.EPOLL_CTL_MOD;
      }
      Libc.setEvent(scratch.event, epollFlags(want), fd);
      if (Libc.epollCtl(scratch.errno, epfd, op, fd, scratch.eventAddress) < 0) {
        refused = true;
        owner.onInterestRefused(Libc.error("epoll_ctl", scratch.errno()));
        continue;
      }
      interests[fd] = want | want << IN_KERNEL_SHIFT | (interests[fd] & QUEUED);
    }
    System.arraycopy(changed, due, changed, 0, changes - due);
    changes -= due;
    return refused;
  }

  private static int epollFlags(int ops) {
    int flags = 0;
    if ((ops & (READ | ACCEPT)) != 0) {
      flags |= Libc.EPOLLIN | Libc.EPOLLRDHUP;
    }
    if ((ops & (WRITE | CONNECT)) != 0) {
      flags |= Libc.EPOLLOUT;
    }
    return flags;
  }

  @Override
  public void close() {
    Libc.close(wakeFd);
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
