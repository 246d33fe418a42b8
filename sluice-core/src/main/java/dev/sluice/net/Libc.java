package dev.sluice.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * The libc calls of the epoll transport, through java.lang.foreign: no JNI, nothing to ship.
 * Pointers are passed as raw addresses ({@code long}), so a call allocates no segment; every call
 * that can fail takes the caller's preallocated errno capture segment ({@link #newErrnoState}). The
 * calls that never block ({@code epoll_wait} is the one that does) are linked {@code critical}:
 * they skip the thread-state transition a blocking call needs. Linux constants, x86_64 and aarch64.
 */
@SuppressWarnings("restricted") // the point of this class: native calls, enabled by the launcher
final class Libc {
  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int EINTR = 4;
  static final int EBADF = 9;
  static final int EAGAIN = 11;
  static final int ENOMEM = 12;
  static final int EACCES = 13;
  static final int EINVAL = 22;
  static final int ENFILE = 23;
  static final int EMFILE = 24;
  static final int EPIPE = 32;
  static final int EAFNOSUPPORT = 97;
  static final int EADDRINUSE = 98;
  static final int EADDRNOTAVAIL = 99;
  static final int ENETDOWN = 100;
  static final int ENETUNREACH = 101;
  static final int ECONNABORTED = 103;
  static final int ECONNRESET = 104;
  static final int ENOBUFS = 105;
  static final int ENOTCONN = 107;
  static final int ETIMEDOUT = 110;
  static final int ECONNREFUSED = 111;
  static final int EHOSTUNREACH = 113;
  static final int EINPROGRESS = 115;

  static final int AF_UNIX = 1;
  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  static final int SOCK_STREAM = 1;
  static final int SOCK_NONBLOCK = 0x800;
  static final int SOCK_CLOEXEC = 0x80000;
  static final int SOL_SOCKET = 1;
  static final int SO_REUSEADDR = 2;
  static final int SO_ERROR = 4;
  static final int SO_SNDBUF = 7;
  static final int SO_RCVBUF = 8;
  static final int SO_KEEPALIVE = 9;
  static final int SO_LINGER = 13;
  static final int SO_REUSEPORT = 15;
  static final int IPPROTO_TCP = 6;
  static final int TCP_NODELAY = 1;
  static final int IPPROTO_IPV6 = 41;
  static final int IPV6_V6ONLY = 26;
  static final int MSG_NOSIGNAL = 0x4000;
  static final int SHUT_WR = 1;
  static final int O_NONBLOCK = 0x800;
  static final int O_CLOEXEC = 0x80000;
  static final int SPLICE_F_MOVE = 1;
  static final int SPLICE_F_NONBLOCK = 2;

  static final int EPOLL_CLOEXEC = 0x80000;
  static final int EPOLL_CTL_ADD = 1;
  static final int EPOLLIN = 0x1;
  static final int EPOLLPRI = 0x2;
  static final int EPOLLOUT = 0x4;
  static final int EPOLLERR = 0x8;
  static final int EPOLLHUP = 0x10;
  static final int EPOLLRDHUP = 0x2000;
  static final int EPOLLET = 1 << 31;
  static final int EFD_NONBLOCK = 0x800;
  static final int EFD_CLOEXEC = 0x80000;

  /** struct epoll_event: packed on x86_64 (12 bytes), naturally aligned elsewhere (16). */
  static final long EVENT_SIZE;

  static final long EVENT_DATA_OFFSET;

  private static final ValueLayout.OfLong EVENT_DATA = ValueLayout.JAVA_LONG_UNALIGNED;

  private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;

  private static final MethodHandle EPOLL_CREATE1;
  private static final MethodHandle EPOLL_CTL;
  private static final MethodHandle EPOLL_WAIT;
  private static final MethodHandle EVENTFD;
  private static final MethodHandle READ;
  private static final MethodHandle RECV;
  private static final MethodHandle WRITE;
  private static final MethodHandle WAKE_WRITE;
  private static final MethodHandle SEND;
  private static final MethodHandle SENDMSG;
  private static final MethodHandle SOCKET;
  private static final MethodHandle BIND;
  private static final MethodHandle LISTEN;
  private static final MethodHandle ACCEPT4;
  private static final MethodHandle CONNECT;
  private static final MethodHandle GETSOCKOPT;
  private static final MethodHandle SETSOCKOPT;
  private static final MethodHandle GETSOCKNAME;
  private static final MethodHandle GETPEERNAME;
  private static final MethodHandle SHUTDOWN;
  private static final MethodHandle CLOSE;
  private static final MethodHandle PIPE2;
  private static final MethodHandle SPLICE;
  private static final MethodHandle STRERROR;

  static {
    String arch = System.getProperty("os.arch");
    boolean packed = arch.equals("amd64") || arch.equals("x86_64");
    EVENT_SIZE = packed ? 12 : 16;
    EVENT_DATA_OFFSET = packed ? 4 : 8;
    EPOLL_CREATE1 = quick("epoll_create1", FunctionDescriptor.of(I, I));
    EPOLL_CTL = quick("epoll_ctl", FunctionDescriptor.of(I, I, I, I, L));
    EPOLL_WAIT = blocking("epoll_wait", FunctionDescriptor.of(I, I, L, I, I));
    EVENTFD = quick("eventfd", FunctionDescriptor.of(I, I, I));
    READ = quick("read", FunctionDescriptor.of(L, I, L, L));
    RECV = quick("recv", FunctionDescriptor.of(L, I, L, L, I));
    WRITE = quick("write", FunctionDescriptor.of(L, I, L, L));
    WAKE_WRITE =
        Linker.nativeLinker().downcallHandle(find("write"), FunctionDescriptor.of(L, I, L, L));
    SEND = quick("send", FunctionDescriptor.of(L, I, L, L, I));
    SENDMSG = quick("sendmsg", FunctionDescriptor.of(L, I, L, I));
    SOCKET = quick("socket", FunctionDescriptor.of(I, I, I, I));
    BIND = quick("bind", FunctionDescriptor.of(I, I, L, I));
    LISTEN = quick("listen", FunctionDescriptor.of(I, I, I));
    ACCEPT4 = quick("accept4", FunctionDescriptor.of(I, I, L, L, I));
    CONNECT = quick("connect", FunctionDescriptor.of(I, I, L, I));
    GETSOCKOPT = quick("getsockopt", FunctionDescriptor.of(I, I, I, I, L, L));
    SETSOCKOPT = quick("setsockopt", FunctionDescriptor.of(I, I, I, I, L, I));
    GETSOCKNAME = quick("getsockname", FunctionDescriptor.of(I, I, L, L));
    GETPEERNAME = quick("getpeername", FunctionDescriptor.of(I, I, L, L));
    SHUTDOWN = quick("shutdown", FunctionDescriptor.of(I, I, I));
    PIPE2 = quick("pipe2", FunctionDescriptor.of(I, L, I));
    SPLICE = quick("splice", FunctionDescriptor.of(L, I, L, I, L, L, I));
    CLOSE = Linker.nativeLinker().downcallHandle(find("close"), FunctionDescriptor.of(I, I));
    STRERROR =
        Linker.nativeLinker()
            .downcallHandle(find("strerror"), FunctionDescriptor.of(ValueLayout.ADDRESS, I));
  }

  private Libc() {}

  private static MemorySegment find(String name) {
    return Linker.nativeLinker()
        .defaultLookup()
        .find(name)
        .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
  }

  private static MethodHandle quick(String name, FunctionDescriptor descriptor) {
    return Linker.nativeLinker()
        .downcallHandle(
            find(name),
            descriptor,
            Linker.Option.captureCallState("errno"),
            Linker.Option.critical(false));
  }

  private static MethodHandle blocking(String name, FunctionDescriptor descriptor) {
    return Linker.nativeLinker()
        .downcallHandle(find(name), descriptor, Linker.Option.captureCallState("errno"));
  }

  /**
   * A segment for one thread's captured errno: memory from {@code arena}, seen through a view of
   * the global scope. Every call passes it, and a segment of a closeable arena makes each call
   * acquire and release its session (two atomic updates, 7-11% of the proxy's CPU samples); the
   * view's scope does neither. The view must not be used once {@code arena} is closed, which its
   * one owner, a loop's scratch, ensures.
   */
  static MemorySegment newErrnoState(Arena arena) {
    return MemorySegment.ofAddress(arena.allocate(CAPTURE).address())
        .reinterpret(CAPTURE.byteSize());
  }

  /** The errno the last call made with {@code state} left. */
  static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }

  static int eventFlags(MemorySegment events, int index) {
    return events.get(ValueLayout.JAVA_INT_UNALIGNED, index * EVENT_SIZE);
  }

  static long eventData(MemorySegment events, int index) {
    return events.get(EVENT_DATA, index * EVENT_SIZE + EVENT_DATA_OFFSET);
  }

  static void setEvent(MemorySegment event, int flags, long data) {
    event.set(ValueLayout.JAVA_INT_UNALIGNED, 0, flags);
    event.set(EVENT_DATA, EVENT_DATA_OFFSET, data);
  }

  /**
   * The C library's English text for the errors a socket meets, whatever the process's locale: the
   * text is what callers (and the JDK's own exceptions) classify by, and a process whose LANGUAGE
   * or LANG asks for another (German on a German server) gets translated strerror texts.
   */
  private static final Map<Integer, String> ENGLISH =
      Map.ofEntries(
          Map.entry(EPERM, "Operation not permitted"),
          Map.entry(ENOENT, "No such file or directory"),
          Map.entry(EINTR, "Interrupted system call"),
          Map.entry(EBADF, "Bad file descriptor"),
          Map.entry(EAGAIN, "Resource temporarily unavailable"),
          Map.entry(ENOMEM, "Cannot allocate memory"),
          Map.entry(EACCES, "Permission denied"),
          Map.entry(EINVAL, "Invalid argument"),
          Map.entry(ENFILE, "Too many open files in system"),
          Map.entry(EMFILE, "Too many open files"),
          Map.entry(EPIPE, "Broken pipe"),
          Map.entry(EAFNOSUPPORT, "Address family not supported by protocol"),
          Map.entry(EADDRINUSE, "Address already in use"),
          Map.entry(EADDRNOTAVAIL, "Cannot assign requested address"),
          Map.entry(ENETDOWN, "Network is down"),
          Map.entry(ENETUNREACH, "Network is unreachable"),
          Map.entry(ECONNABORTED, "Software caused connection abort"),
          Map.entry(ECONNRESET, "Connection reset by peer"),
          Map.entry(ENOBUFS, "No buffer space available"),
          Map.entry(ENOTCONN, "Transport endpoint is not connected"),
          Map.entry(ETIMEDOUT, "Connection timed out"),
          Map.entry(ECONNREFUSED, "Connection refused"),
          Map.entry(EHOSTUNREACH, "No route to host"));

  /** The text for {@code errno}: English for a socket's errors, else the C library's. */
  static String strerror(int errno) {
    String english = ENGLISH.get(errno);
    if (english != null) {
      return english;
    }
    try {
      MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
      return text.reinterpret(256).getString(0);
    } catch (Throwable t) {
      return "errno " + errno;
    }
  }

  /** An IOException for {@code errno}, with its C text (which callers classify by). */
  static IOException error(String call, int errno) {
    return new IOException(strerror(errno) + " (" + call + ", errno " + errno + ")");
  }

  // Each wrapper returns what the C function returns; -1 leaves errno in the state segment.

  static int epollCreate1(MemorySegment err, int flags) {
    try {
      return (int) EPOLL_CREATE1.invokeExact(err, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int epollCtl(MemorySegment err, int epfd, int op, int fd, long event) {
    try {
      return (int) EPOLL_CTL.invokeExact(err, epfd, op, fd, event);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int epollWait(MemorySegment err, int epfd, long events, int max, int timeoutMillis) {
    try {
      return (int) EPOLL_WAIT.invokeExact(err, epfd, events, max, timeoutMillis);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int eventfd(MemorySegment err, int initial, int flags) {
    try {
      return (int) EVENTFD.invokeExact(err, initial, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static long read(MemorySegment err, int fd, long buffer, long count) {
    try {
      return (long) READ.invokeExact(err, fd, buffer, count);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  /**
   * recv(2) with no flags: what read(2) does on a socket, without the file layer's position lock
   * and checks, about 0.2 us less CPU a call (the bench module's socket-read-cost.c).
   */
  static long recv(MemorySegment err, int fd, long buffer, long count) {
    try {
      return (long) RECV.invokeExact(err, fd, buffer, count, 0);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static long write(MemorySegment err, int fd, long buffer, long count) {
    try {
      return (long) WRITE.invokeExact(err, fd, buffer, count);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  /** write(2) without errno: the eventfd wake-up, from any thread. */
  static void wakeWrite(int fd, long buffer) {
    try {
      long ignored = (long) WAKE_WRITE.invokeExact(fd, buffer, 8L);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static long send(MemorySegment err, int fd, long buffer, long count, int flags) {
    try {
      return (long) SEND.invokeExact(err, fd, buffer, count, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static long sendmsg(MemorySegment err, int fd, long msghdr, int flags) {
    try {
      return (long) SENDMSG.invokeExact(err, fd, msghdr, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int socket(MemorySegment err, int domain, int type, int protocol) {
    try {
      return (int) SOCKET.invokeExact(err, domain, type, protocol);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int bind(MemorySegment err, int fd, long address, int length) {
    try {
      return (int) BIND.invokeExact(err, fd, address, length);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int listen(MemorySegment err, int fd, int backlog) {
    try {
      return (int) LISTEN.invokeExact(err, fd, backlog);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int accept4(MemorySegment err, int fd, long address, long lengthPointer, int flags) {
    try {
      return (int) ACCEPT4.invokeExact(err, fd, address, lengthPointer, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int connect(MemorySegment err, int fd, long address, int length) {
    try {
      return (int) CONNECT.invokeExact(err, fd, address, length);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int getsockopt(
      MemorySegment err, int fd, int level, int name, long value, long lengthPointer) {
    try {
      return (int) GETSOCKOPT.invokeExact(err, fd, level, name, value, lengthPointer);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int setsockopt(MemorySegment err, int fd, int level, int name, long value, int length) {
    try {
      return (int) SETSOCKOPT.invokeExact(err, fd, level, name, value, length);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int getsockname(MemorySegment err, int fd, long address, long lengthPointer) {
    try {
      return (int) GETSOCKNAME.invokeExact(err, fd, address, lengthPointer);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int getpeername(MemorySegment err, int fd, long address, long lengthPointer) {
    try {
      return (int) GETPEERNAME.invokeExact(err, fd, address, lengthPointer);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  static int shutdown(MemorySegment err, int fd, int how) {
    try {
      return (int) SHUTDOWN.invokeExact(err, fd, how);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  /** pipe2(2): the read and write ends as two ints at {@code fds}. */
  static int pipe2(MemorySegment err, long fds, int flags) {
    try {
      return (int) PIPE2.invokeExact(err, fds, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  /** splice(2) between two descriptors at their current positions (no offsets: sockets, pipes). */
  static long splice(MemorySegment err, int fdIn, int fdOut, long length, int flags) {
    try {
      return (long) SPLICE.invokeExact(err, fdIn, 0L, fdOut, 0L, length, flags);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  /** close(2), without errno: on Linux the descriptor is gone whatever it returns. */
  static void close(int fd) {
    try {
      int ignored = (int) CLOSE.invokeExact(fd);
    } catch (Throwable t) {
      throw unexpected(t);
    }
  }

  private static RuntimeException unexpected(Throwable t) {
    if (t instanceof RuntimeException e) {
      return e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException("libc call failed", t);
  }
}
