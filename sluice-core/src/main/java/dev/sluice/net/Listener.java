package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A bound server socket (TCP or Unix-domain). It accepts on one loop and spreads connections over
 * the group's loops. When accept fails for lack of file descriptors (EMFILE/ENFILE) it stops
 * accepting for a while, logs it, and retries with backoff: it never spins.
 */
public final class Listener implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.sluice.net");
  private static final long MIN_BACKOFF_NANOS = 10_000_000L;
  private static final long MAX_BACKOFF_NANOS = 1_000_000_000L;
  private static final int MAX_ACCEPTS_PER_EVENT = 64;

  private final EventLoopGroup group;
  private final EventLoop loop;
  private final ServerSocketChannel server;
  private final SocketAddress localAddress;
  private final SocketOptions options;
  private final Supplier<? extends ConnectionHandler> handlers;
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong acceptBackoffs = new AtomicLong();
  private final ResumeTimer resumeTimer = new ResumeTimer();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CompletableFuture<Void> unbound = new CompletableFuture<>();
  private SelectionKey key;
  private boolean unbinding;
  private long backoffNanos = MIN_BACKOFF_NANOS;

  private Listener(
      EventLoopGroup group,
      EventLoop loop,
      ServerSocketChannel server,
      SocketOptions options,
      Supplier<? extends ConnectionHandler> handlers)
      throws IOException {
    this.group = group;
    this.loop = loop;
    this.server = server;
    this.localAddress = server.getLocalAddress();
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
    boolean unix = address instanceof UnixDomainSocketAddress;
    ServerSocketChannel server =
        unix ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
    try {
      if (!unix) {
        server.setOption(StandardSocketOptions.SO_REUSEADDR, options.reuseAddress());
        if (options.reusePort()) {
          server.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        }
      }
      if (options.receiveBufferSize() > 0) {
        server.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
      }
      server.bind(address, options.backlog());
      server.configureBlocking(false);
    } catch (IOException e) {
      server.close();
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    } catch (UnresolvedAddressException e) {
      server.close(); // unchecked, but a failed bind all the same: the socket must not leak
      throw new IOException("cannot listen on " + address + ": the host name does not resolve", e);
    } catch (RuntimeException e) {
      server.close(); // an unsupported address type, a security manager: nor must it leak then
      throw e;
    }
    Listener listener = new Listener(group, loop, server, options, handlers);
    try {
      loop.execute(listener::register);
    } catch (RejectedExecutionException stopped) {
      listener.unbindNow();
      throw shutDown(address);
    }
    return listener;
  }

  private static IOException shutDown(SocketAddress address) {
    return new IOException("cannot listen on " + address + ": the event loop group is shut down");
  }

  private void register() {
    if (closing.get()) {
      return; // closed before the loop got to it
    }
    try {
      key = loop.register(server, SelectionKey.OP_ACCEPT, selectable());
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "listener on {0} not registered: {1}", localAddress, e);
      unbindNow();
    }
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

  private void onAcceptable() {
    for (int i = 0; i < MAX_ACCEPTS_PER_EVENT && !closing.get(); i++) {
      SocketChannel channel;
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

  private void hand(SocketChannel channel) {
    ConnectionHandler handler;
    try {
      handler = handlers.get();
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING, "handler factory failed; closing accepted connection", e);
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing more to do for a connection we never used
      }
      return;
    }
    EventLoop target = group.next();
    if (target == loop) {
      SocketConnection.accepted(loop, channel, options, handler);
      return;
    }
    try {
      target.execute(() -> SocketConnection.accepted(target, channel, options, handler));
    } catch (RejectedExecutionException shuttingDown) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing more to do for a connection no loop will serve
      }
    }
  }

  private void onAcceptFailure(Exception e) {
    // Pause first: what follows may fail, and the listener must not spin on a ready socket.
    long pauseNanos = backoffNanos;
    key.interestOps(0);
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

  /**
   * Stops accepting and unbinds; accepted connections stay open. The future completes once the
   * socket is unbound (a Unix socket's file deleted), so the address can be bound again.
   */
  public CompletableFuture<Void> closeAsync() {
    if (closing.compareAndSet(false, true)) {
      // Once the loop has stopped it has unbound every listener it knew; unbinding one it never
      // registered is then safe on any thread.
      if (loop.inLoop()) {
        unbindNow();
      } else {
        loop.submit(this::unbindNow, this::unbindNow);
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

  private synchronized void unbindNow() {
    if (unbinding) {
      return;
    }
    unbinding = true;
    if (loop.inLoop()) {
      loop.timers().cancel(resumeTimer);
    }
    if (key != null) {
      key.cancel();
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing listener " + localAddress, e);
    }
    Runnable unbind =
        () -> {
          if (localAddress instanceof UnixDomainSocketAddress unix) {
            deleteSocketFile(unix.getPath());
          }
          unbound.complete(null);
        };
    if (key != null && loop.inLoop()) {
      loop.afterCancelledKeysFlushed(unbind); // the socket closes when the selector lets go
    } else {
      unbind.run();
    }
  }

  private static void deleteSocketFile(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "could not delete socket file " + path, e);
    }
  }

  private EventLoop.Selectable selectable() {
    return new EventLoop.Selectable() {
      @Override
      public void onSelected(SelectionKey k) {
        if (k.isAcceptable()) {
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

  @Override
  public String toString() {
    return "Listener[" + localAddress + "]";
  }

  private final class ResumeTimer extends TimerWheel.Timer {
    @Override
    void expire() {
      if (!closing.get() && key.isValid()) {
        key.interestOps(SelectionKey.OP_ACCEPT);
        onAcceptable();
      }
    }
  }
}
