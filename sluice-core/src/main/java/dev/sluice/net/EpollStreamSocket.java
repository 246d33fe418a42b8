package dev.sluice.net;

import dev.sluice.internal.LeakRegistry;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A stream socket on an {@link EpollPoller}: a raw descriptor, non-blocking from birth ({@code
 * SOCK_NONBLOCK}), written with {@code send}/{@code sendmsg} and {@code MSG_NOSIGNAL} so that a
 * peer gone away is an EPIPE, never a SIGPIPE. Every call uses the loop's scratch memory.
 */
final class EpollStreamSocket implements StreamSocket {
  private final int fd;
  private final int family;
  private final Object leakToken;
  private EpollPoller.Scratch scratch;
  private EpollPoller poller;
  private SocketAddress local;

  /** An IPv4 local address the kernel gave, packed ({@link SockAddr#packedIpv4}); else -1. */
  private volatile long localIpv4 = -1; // volatile: read on any thread (Connection.localAddress)

  private SocketAddress remote;
  private boolean closed;

  private EpollStreamSocket(
      int fd, int family, EpollPoller.Scratch scratch, SocketAddress local, SocketAddress remote) {
    this.fd = fd;
    this.family = family;
    this.scratch = scratch;
    this.local = local;
    this.remote = remote;
    this.leakToken = LeakRegistry.track("socket fd " + fd);
  }

  /** A new socket of {@code family}, for connecting. */
  static EpollStreamSocket open(EpollPoller.Scratch scratch, int family) throws IOException {
    int fd =
        Libc.socket(
            scratch.errno, family, Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC, 0);
    if (fd < 0) {
      throw Libc.error("socket", scratch.errno());
    }
    return new EpollStreamSocket(fd, family, scratch, null, null);
  }

  /**
   * A socket {@code accept4} returned, from {@code remote}; {@code local} is its address when the
   * listener knows it (bound to one address, not a wildcard), else null: asked of the kernel then.
   */
  static EpollStreamSocket accepted(
      int fd, int family, EpollPoller.Scratch scratch, SocketAddress local, SocketAddress remote) {
    return new EpollStreamSocket(fd, family, scratch, local, remote);
  }

  int fd() {
    return fd;
  }

  /** The scratch memory of the loop this socket is registered with. */
  EpollPoller.Scratch scratch() {
    return scratch;
  }

  @Override
  public void register(Poller poller, Pollable owner, int ops) throws IOException {
    this.poller = (EpollPoller) poller;
    this.scratch = this.poller.scratch; // an accepted socket moves from the accepting loop
    this.poller.add(fd, owner, ops);
    if (remote != null && local == null) {
      learnLocalAddress();
    }
  }

  @Override
  public void interest(int ops) throws IOException {
    if (!closed) {
      poller.modify(fd, ops);
    }
  }

  /**
   * Sets only what differs from a new socket's state, one call per option set: a socket from {@code
   * socket()} starts with Nagle on and keep-alive off, and an accepted one inherits those from its
   * listener, which sets neither. SO_REUSEADDR is for sockets that bind; a stream socket here never
   * binds (connect picks its port), so it is left alone. Each call counts in a proxy's cost per
   * connection.
   */
  @Override
  public void configure(SocketOptions options) throws IOException {
    if (family != Libc.AF_UNIX) {
      if (options.tcpNoDelay()) {
        scratch.setInt(fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, 1);
      }
      if (options.keepAlive()) {
        scratch.setInt(fd, Libc.SOL_SOCKET, Libc.SO_KEEPALIVE, 1);
      }
    }
    if (options.sendBufferSize() > 0) {
      scratch.setInt(fd, Libc.SOL_SOCKET, Libc.SO_SNDBUF, options.sendBufferSize());
    }
    if (options.receiveBufferSize() > 0) {
      scratch.setInt(fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, options.receiveBufferSize());
    }
  }

  @Override
  public boolean connect(SocketAddress address) throws IOException {
    int length = SockAddr.encode(address, scratch.sockaddr);
    remote = address;
    int rc = Libc.connect(scratch.errno, fd, scratch.sockaddrAddress, length);
    if (rc == 0) {
      connected(); // the scratch address still holds the peer's, as encoded above
      return true;
    }
    int errno = scratch.errno();
    if (errno == Libc.EINPROGRESS || errno == Libc.EINTR) {
      return false; // EINTR: the connect goes on regardless; the local address comes with its end
    }
    throw Libc.error("connect", errno);
  }

  @Override
  public boolean finishConnect() throws IOException {
    // A peer name proves the connection; only without one is SO_ERROR asked why. No error then
    // still means "in progress" (a stale readiness for a reused descriptor).
    if (Libc.getpeername(scratch.errno, fd, scratch.sockaddrAddress, scratch.resetLength()) < 0) {
      int errno = scratch.errno();
      if (errno != Libc.ENOTCONN) {
        throw Libc.error("getpeername", errno);
      }
      int error = scratch.getInt(fd, Libc.SOL_SOCKET, Libc.SO_ERROR);
      if (error != 0) {
        throw Libc.error("connect", error);
      }
      writeBlocked(); // the connect's end is told when it comes
      return false;
    }
    connected(); // the scratch address holds the peer's name
    return true;
  }

  /**
   * Learns the local address of a socket just connected to the peer whose address the scratch
   * holds, and refuses a connection to itself: a TCP connect to a port of this host where nothing
   * listens can be given that very port as its own, and its SYN then answers itself (a simultaneous
   * open), leaving a socket that echoes what it is sent. Nothing listens there, so it is the
   * refusal it stands for, as Go's net package reports it.
   */
  private void connected() throws IOException {
    if (family == Libc.AF_UNIX) {
      learnLocalAddress();
      return;
    }
    long peer = SockAddr.packedIpv4(scratch.sockaddr);
    learnLocalAddress();
    if (peer >= 0 ? peer == localIpv4 : local.equals(remote)) {
      throw new ConnectException(
          "Connection refused: connected to itself at " + remote + " (nothing listens there)");
    }
  }

  /** Asks the kernel; an IPv4 address is kept packed (80 B less per connection while it lives). */
  private void learnLocalAddress() throws IOException {
    if (Libc.getsockname(scratch.errno, fd, scratch.sockaddrAddress, scratch.resetLength()) < 0) {
      throw Libc.error("getsockname", scratch.errno());
    }
    long packed = SockAddr.packedIpv4(scratch.sockaddr);
    if (packed >= 0) {
      localIpv4 = packed;
    } else {
      local = SockAddr.decode(scratch.sockaddr, scratch.lengthValue());
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    int position = dst.position();
    int room = dst.limit() - position;
    if (room == 0) {
      return 0;
    }
    long address = scratch.readAddress(dst) + position;
    while (true) {
      long n = Libc.recv(scratch.errno, fd, address, room);
      if (n > 0) {
        dst.position(position + (int) n);
        if (n < room) {
          readShort(); // a stream read returns less when the socket has no more now
        }
        return (int) n;
      }
      if (n == 0) {
        return -1;
      }
      int errno = scratch.errno();
      if (errno == Libc.EAGAIN) {
        readDrained();
        return 0;
      }
      if (errno != Libc.EINTR) {
        throw Libc.error("recv", errno);
      }
    }
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    int position = src.position();
    int length = src.limit() - position;
    if (length == 0) {
      return 0;
    }
    long address = scratch.writeAddress(src) + position;
    while (true) {
      long n = Libc.send(scratch.errno, fd, address, length, Libc.MSG_NOSIGNAL);
      if (n >= 0) {
        src.position(position + (int) n);
        if (n < length) {
          writeBlocked(); // the kernel marked the socket full: it tells when room frees
        }
        return (int) n;
      }
      int errno = scratch.errno();
      if (errno == Libc.EAGAIN) {
        writeBlocked();
        return 0;
      }
      if (errno != Libc.EINTR) {
        throw Libc.error("send", errno);
      }
    }
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    int count = Math.min(length, EpollPoller.Scratch.IOV_MAX);
    MemorySegment iovecs = scratch.iovecs;
    long total = 0;
    for (int i = 0; i < count; i++) {
      ByteBuffer b = srcs[offset + i];
      int remaining = b.remaining();
      iovecs.set(ValueLayout.JAVA_LONG, 16L * i, scratch.writeAddress(b) + b.position());
      iovecs.set(ValueLayout.JAVA_LONG, 16L * i + 8, remaining);
      total += remaining;
    }
    if (total == 0) {
      return 0;
    }
    scratch.msghdr.set(ValueLayout.JAVA_LONG, 24, count); // msg_iovlen
    long n;
    while (true) {
      n = Libc.sendmsg(scratch.errno, fd, scratch.msghdrAddress, Libc.MSG_NOSIGNAL);
      if (n >= 0) {
        break;
      }
      int errno = scratch.errno();
      if (errno == Libc.EAGAIN) {
        writeBlocked();
        return 0;
      }
      if (errno != Libc.EINTR) {
        throw Libc.error("sendmsg", errno);
      }
    }
    if (n < total) {
      writeBlocked();
    }
    long left = n;
    for (int i = 0; i < count && left > 0; i++) {
      ByteBuffer b = srcs[offset + i];
      int step = (int) Math.min(left, b.remaining());
      b.position(b.position() + step);
      left -= step;
    }
    return n;
  }

  /**
   * The socket has nothing more to read now, as a read (or a splice from it) showed: the poller
   * forgets its readiness until the kernel tells of more.
   */
  void readDrained() {
    if (poller != null) {
      poller.readDrained(fd);
    }
  }

  /** A read returned fewer bytes than asked: drained, but for urgent data (see the poller). */
  void readShort() {
    if (poller != null) {
      poller.readShort(fd);
    }
  }

  /** Whether the peer sent urgent data: a splice from this socket would stop at its mark. */
  boolean urgent() {
    return poller != null && poller.urgent(fd);
  }

  /** The socket took no more (or its connect is not done), as a write showed. */
  void writeBlocked() {
    if (poller != null) {
      poller.writeBlocked(fd);
    }
  }

  @Override
  public void shutdownOutput() throws IOException {
    // ENOTCONN: the peer reset or closed already; as the JDK does, nothing is left to shut down.
    if (Libc.shutdown(scratch.errno, fd, Libc.SHUT_WR) < 0 && scratch.errno() != Libc.ENOTCONN) {
      throw Libc.error("shutdown", scratch.errno());
    }
  }

  @Override
  public void lingerZero() throws IOException {
    scratch.value.set(ValueLayout.JAVA_INT, 0, 1); // l_onoff
    scratch.value.set(ValueLayout.JAVA_INT, 4, 0); // l_linger: close resets
    if (Libc.setsockopt(scratch.errno, fd, Libc.SOL_SOCKET, Libc.SO_LINGER, scratch.valueAddress, 8)
        < 0) {
      throw Libc.error("setsockopt", scratch.errno());
    }
  }

  @Override
  public SocketAddress localAddress() {
    long packed = localIpv4;
    return packed >= 0 ? SockAddr.unpackIpv4(packed) : local;
  }

  @Override
  public SocketAddress remoteAddress() {
    return remote;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (poller != null) {
      poller.remove(fd);
    }
    Libc.close(fd);
    LeakRegistry.untrack(leakToken);
  }

  @Override
  public String toString() {
    return "fd " + fd;
  }
}
