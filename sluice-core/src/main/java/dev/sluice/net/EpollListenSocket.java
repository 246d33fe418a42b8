package dev.sluice.net;

import dev.sluice.internal.LeakRegistry;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.UnresolvedAddressException;

/** A listening socket on an {@link EpollPoller}, accepting with {@code accept4}. */
final class EpollListenSocket implements ListenSocket {
  private final int fd;
  private final int family;
  private final SocketAddress localAddress;

  /** The local address of every accepted socket, when bound to one address; null for a wildcard. */
  private final SocketAddress knownLocal;

  private final Object leakToken;
  private EpollPoller poller;
  private boolean closed;

  private EpollListenSocket(int fd, int family, SocketAddress localAddress) {
    this.fd = fd;
    this.family = family;
    this.localAddress = localAddress;
    this.knownLocal =
        localAddress instanceof InetSocketAddress inet && !inet.getAddress().isAnyLocalAddress()
            ? localAddress
            : null;
    this.leakToken = LeakRegistry.track("listening socket fd " + fd);
  }

  /**
   * Binds {@code address} on the calling thread, so that a bad address fails here; with {@code
   * reusePort} SO_REUSEPORT is set, as {@link SocketOptions#reusePort()} or one socket per loop
   * need.
   */
  static EpollListenSocket open(SocketAddress address, SocketOptions options, boolean reusePort)
      throws IOException {
    return open(address, options, reusePort, true);
  }

  /**
   * Binds {@code address} without SO_REUSEPORT and without listening, and unbinds it: whether the
   * address is free for this process alone, as a listener that did not ask for {@link
   * SocketOptions#reusePort()} expects, before the loops' SO_REUSEPORT sockets take it. Returns the
   * address bound (the port the kernel picked for port 0).
   */
  static SocketAddress probeExclusive(SocketAddress address, SocketOptions options)
      throws IOException {
    EpollListenSocket probe = open(address, options, false, false);
    SocketAddress bound = probe.localAddress();
    probe.close();
    return bound;
  }

  private static EpollListenSocket open(
      SocketAddress address, SocketOptions options, boolean reusePort, boolean listen)
      throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      EpollPoller.Scratch s = new EpollPoller.Scratch(arena);
      int family;
      try {
        family = SockAddr.family(address);
      } catch (UnresolvedAddressException e) {
        throw new IOException(
            "cannot listen on " + address + ": the host name does not resolve", e);
      }
      int fd =
          Libc.socket(
              s.errno, family, Libc.SOCK_STREAM | Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw failure(address, Libc.error("socket", s.errno()));
      }
      try {
        if (family != Libc.AF_UNIX) {
          s.setInt(fd, Libc.SOL_SOCKET, Libc.SO_REUSEADDR, options.reuseAddress() ? 1 : 0);
          if (reusePort) {
            s.setInt(fd, Libc.SOL_SOCKET, Libc.SO_REUSEPORT, 1);
          }
          if (family == Libc.AF_INET6) {
            s.setInt(fd, Libc.IPPROTO_IPV6, Libc.IPV6_V6ONLY, 0); // as the JDK: both families
          }
        }
        if (options.receiveBufferSize() > 0) {
          s.setInt(fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, options.receiveBufferSize());
        }
        int length = SockAddr.encode(address, s.sockaddr);
        if (Libc.bind(s.errno, fd, s.sockaddrAddress, length) < 0) {
          throw Libc.error("bind", s.errno());
        }
        if (listen && Libc.listen(s.errno, fd, options.backlog()) < 0) {
          throw Libc.error("listen", s.errno());
        }
        if (Libc.getsockname(s.errno, fd, s.sockaddrAddress, s.resetLength()) < 0) {
          throw Libc.error("getsockname", s.errno());
        }
        SocketAddress bound =
            family == Libc.AF_UNIX ? address : SockAddr.decode(s.sockaddr, s.lengthValue());
        return new EpollListenSocket(fd, family, bound);
      } catch (IOException e) {
        Libc.close(fd);
        throw failure(address, e);
      } catch (RuntimeException e) {
        Libc.close(fd);
        throw e;
      }
    }
  }

  private static IOException failure(SocketAddress address, IOException cause) {
    return new IOException("cannot listen on " + address + ": " + cause.getMessage(), cause);
  }

  @Override
  public void register(Poller poller, Pollable owner) throws IOException {
    this.poller = (EpollPoller) poller;
    this.poller.add(fd, owner, Poller.ACCEPT);
  }

  @Override
  public void interest(int ops) throws IOException {
    if (!closed && poller != null) {
      poller.modify(fd, ops);
    }
  }

  @Override
  public StreamSocket accept() throws IOException {
    EpollPoller.Scratch s = poller.scratch;
    while (true) {
      int client =
          Libc.accept4(
              s.errno,
              fd,
              s.sockaddrAddress,
              s.resetLength(),
              Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC);
      if (client >= 0) {
        SocketAddress remote;
        try {
          remote = SockAddr.decode(s.sockaddr, s.lengthValue());
        } catch (IOException | RuntimeException e) {
          Libc.close(client);
          throw e;
        }
        return EpollStreamSocket.accepted(client, family, s, knownLocal, remote);
      }
      int errno = s.errno();
      switch (errno) {
        case Libc.EAGAIN -> {
          poller.readDrained(fd); // the kernel tells of the next connection
          return null;
        }
        case Libc.EINTR, Libc.ECONNABORTED -> {
          // interrupted, or the peer gave up while queued: try the next one
        }
        default -> throw Libc.error("accept4", errno);
      }
    }
  }

  @Override
  public SocketAddress localAddress() {
    return localAddress;
  }

  @Override
  public boolean close() {
    if (!closed) {
      closed = true;
      if (poller != null) {
        poller.remove(fd);
      }
      Libc.close(fd);
      LeakRegistry.untrack(leakToken);
    }
    return false;
  }
}
