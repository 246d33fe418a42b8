package dev.sluice.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A bound server socket (TCP or Unix-domain). On NIO (and for Unix-domain sockets) it accepts on
 * one loop and spreads connections over the group's loops. On epoll a TCP listener binds one
 * SO_REUSEPORT socket per loop and each loop accepts its own, so a connection is born on the loop
 * that serves it: no hand-off through a task queue, no wake-up of another loop; the kernel spreads
 * connections over the sockets by a hash of their addresses. When accept fails for lack of file
 * descriptors (EMFILE/ENFILE) that socket stops accepting for a while, logs it, and retries with
 * backoff: it never spins.
 */
public final class Listener implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");
  private static final long MIN_BACKOFF_NANOS = 10_000_000L;
  private static final long MAX_BACKOFF_NANOS = 1_000_000_000L;
  private static final int MAX_ACCEPTS_PER_EVENT = 64;

  private final EventLoopGroup group;
  private final SocketAddress localAddress;
  private final SocketOptions options;
  private final Supplier<? extends ConnectionHandler> handlers;
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong acceptBackoffs = new AtomicLong();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CompletableFuture<Void> unbound = new CompletableFuture<>();
  private final List<Acceptor> acceptors = new ArrayList<>();
  private final AtomicInteger stillBound = new AtomicInteger();

  private Listener(
      EventLoopGroup group,
      SocketAddress localAddress,
      SocketOptions options,
      Supplier<? extends ConnectionHandler> handlers) {
    this.group = group;
    this.localAddress = localAddress;
    this.options = options;
    this.handlers = handlers;
  }

  /**
   * Binds at once on the calling thread (so a bad address fails here) and registers with the loop
   * without waiting for it: a call from a loop thread never blocks. Connections that arrive before
   * the registration wait in the backlog.
   */
  static Listener open(
      EventLoopGroup group,
      EventLoop loop,
      SocketAddress address,
      SocketOptions options,
      Supplier<? extends ConnectionHandler> handlers)
      throws IOException {
    if (loop.isShuttingDown()) {
      throw shutDown(address);
    }
    boolean perLoop =
        group.transport() == Transport.EPOLL
            && address instanceof InetSocketAddress
            && group.loops().size() > 1;
    List<ListenSocket> sockets = new ArrayList<>();
    try {
      if (group.transport() == Transport.EPOLL) {
        SocketAddress first = address;
        if (perLoop && !options.reusePort()) {
          // The loops' sockets share the port with SO_REUSEPORT, which would also let them join
          // another listener's: take the address alone first, as a plain bind would.
          first = EpollListenSocket.probeExclusive(address, options);
        }
        sockets.add(EpollListenSocket.open(first, options, perLoop || options.reusePort()));
        // Port 0 asks for any port: the other loops' sockets join the one the first was given.
        SocketAddress same = sockets.getFirst().localAddress();
        for (int i = 1; perLoop && i < group.loops().size(); i++) {
          sockets.add(EpollListenSocket.open(same, options, true));
        }
      } else {
        sockets.add(NioListenSocket.open(address, options));
      }
    } catch (IOException | RuntimeException e) {
      sockets.forEach(ListenSocket::close);
      throw e;
    }
    Listener listener = new Listener(group, sockets.getFirst().localAddress(), options, handlers);
    for (int i = 0; i < sockets.size(); i++) {
      EventLoop owner = perLoop ? group.loops().get(i) : loop;
      listener.acceptors.add(listener.new Acceptor(owner, sockets.get(i), perLoop));
    }
    listener.stillBound.set(sockets.size());
    for (Acceptor acceptor : listener.acceptors) {
      try {
        acceptor.loop.execute(acceptor::register);
      } catch (RejectedExecutionException stopped) {
        listener.closing.set(true);
        listener.acceptors.forEach(Acceptor::unbindNow);
        throw shutDown(address);
      }
    }
    return listener;
  }

  private static IOException shutDown(SocketAddress address) {
    return new IOException("cannot listen on " + address + ": the event loop group is shut down");
  }

  /** The bound address (with the real port when 0 was asked for). */
  public SocketAddress localAddress() {
    return localAddress;
  }

  /** Connections accepted so far. */
  public long acceptedCount() {
    return accepted.get();
  }

  /** Times accepting paused because the process or system ran out of file descriptors. */
  public long acceptBackoffCount() {
    return acceptBackoffs.get();
  }

  /**
   * Stops accepting and unbinds; accepted connections stay open. Connections the kernel had already
   * queued on the socket are accepted and served first: closing a listening socket resets them
   * (unless Linux can move them to another socket on the port, {@code net.ipv4.tcp_migrate_req=1}),
   * and their clients have seen their connect succeed. The future completes once the socket is
   * unbound (a Unix socket's file deleted), so the address can be bound again.
   */
  public CompletableFuture<Void> closeAsync() {
    if (closing.compareAndSet(false, true)) {
      for (Acceptor acceptor : acceptors) {
        // Once the loop has stopped it has unbound every listener it knew; unbinding one it
        // never registered is then safe on any thread.
        if (acceptor.loop.inLoop()) {
          acceptor.serveQueuedThenUnbind();
        } else {
          acceptor.loop.submit(acceptor::serveQueuedThenUnbind, acceptor::unbindNow);
        }
      }
    }
    return unbound;
  }

  /**
   * Stops accepting and unbinds, and waits until the socket is unbound, except on a loop thread,
   * which must not wait for a loop (use {@link #closeAsync()} there to know when it is unbound).
   */
  @Override
  public void close() {
    CompletableFuture<Void> done = closeAsync();
    if (!group.inLoop()) {
      done.join();
    }
  }

  /** Whether {@link #close()} has been called (or the group shut down). */
  public boolean isClosed() {
    return closing.get() || unbound.isDone();
  }

  private void oneUnbound() {
    if (stillBound.decrementAndGet() == 0) {
      if (localAddress instanceof UnixDomainSocketAddress unix) {
        deleteSocketFile(unix.getPath());
      }
      unbound.complete(null);
    }
  }

  private static void deleteSocketFile(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "could not delete socket file " + path, e);
    }
  }

  @Override
  public String toString() {
    return "Listener[" + localAddress + "]";
  }

  /** One listening socket and the loop that accepts on it. */
  private final class Acceptor {
    private final EventLoop loop;
    private final ListenSocket server;
    private final boolean servesOwnLoop;
    private final ResumeTimer resumeTimer = new ResumeTimer();
    private boolean registered;
    private boolean unbinding;
    private long backoffNanos = MIN_BACKOFF_NANOS;

    Acceptor(EventLoop loop, ListenSocket server, boolean servesOwnLoop) {
      this.loop = loop;
      this.server = server;
      this.servesOwnLoop = servesOwnLoop;
    }

    void register() {
      if (closing.get()) {
        // Closed before this loop got to it (by close(), or by another loop's shutdown, which
        // closes the whole listener): nobody else will unbind this socket.
        unbindNow();
        return;
      }
      try {
        loop.register(server, pollable());
        registered = true;
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "listener on {0} not registered: {1}", localAddress, e);
        unbindNow();
      }
    }

    private void onAcceptable() {
      for (int i = 0; i < MAX_ACCEPTS_PER_EVENT && !closing.get(); i++) {
        StreamSocket channel;
        try {
          channel = server.accept();
        } catch (IOException e) {
          onAcceptFailure(e);
          return;
        }
        if (channel == null) {
          return;
        }
        accepted.incrementAndGet();
        backoffNanos = MIN_BACKOFF_NANOS;
        hand(channel);
      }
    }

    private void hand(StreamSocket channel) {
      ConnectionHandler handler;
      try {
        handler = handlers.get();
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING, "handler factory failed; closing accepted connection", e);
        channel.close();
        return;
      }
      EventLoop target = servesOwnLoop ? loop : group.next();
      if (target == loop) {
        SocketConnection.accepted(loop, channel, options, handler);
        return;
      }
      try {
        target.execute(() -> SocketConnection.accepted(target, channel, options, handler));
      } catch (RejectedExecutionException shuttingDown) {
        channel.close(); // no loop will serve it
      }
    }

    private void onAcceptFailure(Exception e) {
      // Pause first: what follows may fail, and the listener must not spin on a ready socket.
      long pauseNanos = backoffNanos;
      pauseAccepting();
      loop.timers().schedule(resumeTimer, pauseNanos, loop.nanoTime());
      backoffNanos = Math.min(MAX_BACKOFF_NANOS, backoffNanos * 2);
      acceptBackoffs.incrementAndGet();
      String message = String.valueOf(e.getMessage());
      boolean outOfDescriptors = message.contains("Too many open files");
      try {
        LOG.log(
            System.Logger.Level.WARNING,
            "accept on {0} failed ({1}); pausing accepts for {2} ms{3}",
            localAddress,
            message,
            pauseNanos / 1_000_000,
            outOfDescriptors ? " until file descriptors free up" : "");
      } catch (RuntimeException | Error loggingFailed) {
        // Out of descriptors, logging may need one it cannot open (a log file, or time-zone data
        // the first time a record is formatted, which fails with a plain Error). The log line is
        // lost; the event loop must not be.
        if (loggingFailed instanceof VirtualMachineError fatal) {
          throw fatal;
        }
      }
    }

    private void pauseAccepting() {
      try {
        server.interest(0);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "pausing accepts on " + localAddress, e);
      }
    }

    /**
     * Accepts what is queued (at most one backlog's worth, so that a flood cannot hold the close
     * up) and hands it out as usual, then unbinds.
     */
    void serveQueuedThenUnbind() {
      for (int i = 0; registered && !unbinding && i < options.backlog(); i++) {
        StreamSocket channel;
        try {
          channel = server.accept();
        } catch (IOException e) {
          LOG.log(
              System.Logger.Level.WARNING,
              "accepting the connections queued on {0} before closing it failed ({1}); the kernel"
                  + " resets those left",
              localAddress,
              e.getMessage());
          break;
        }
        if (channel == null) {
          break;
        }
        accepted.incrementAndGet();
        hand(channel);
      }
      unbindNow();
    }

    synchronized void unbindNow() {
      if (unbinding) {
        return;
      }
      unbinding = true;
      if (loop.inLoop()) {
        loop.timers().cancel(resumeTimer);
      }
      boolean unboundLater = server.close();
      if (unboundLater && loop.inLoop()) {
        // the socket closes when the selector lets go
        loop.afterCancelledKeysFlushed(Listener.this::oneUnbound);
      } else {
        oneUnbound();
      }
    }

    private Pollable pollable() {
      return new Pollable() {
        @Override
        public void onReady(int ready) {
          if ((ready & Poller.ACCEPT) != 0) {
            onAcceptable();
          }
        }

        @Override
        public void onUnexpectedFailure(RuntimeException e) {
          onAcceptFailure(e);
        }

        @Override
        public void closeForShutdown() {
          closing.set(true);
          unbindNow();
        }
      };
    }

    private final class ResumeTimer extends TimerWheel.Timer {
      @Override
      void expire() {
        if (!closing.get() && registered && !unbinding) {
          try {
            server.interest(Poller.ACCEPT);
          } catch (IOException e) {
            onAcceptFailure(e);
            return;
          }
          onAcceptable();
        }
      }
    }
  }
}
