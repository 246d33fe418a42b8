package dev.sluice.net;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A byte-stream connection as application code sees it: plain ({@link SocketConnection}) or TLS.
 * Every implementation keeps the same contracts: chunks handed to the handler are exact-size,
 * writes are queued by reference (never copied whole), and an idle connection holds no buffer.
 *
 * <p>Methods may be called from any thread unless they say otherwise; calls from other threads are
 * queued to the connection's loop, where all handler callbacks run. Write completions and
 * writability changes are delivered after the call that caused them returns, never inside it.
 */
public interface Connection {

  /** A process-unique id, for logs. */
  long id();

  /** The loop this connection lives on. */
  EventLoop loop();

  /** The peer's address. */
  SocketAddress remoteAddress();

  /** This side's address, or null once closed. */
  SocketAddress localAddress();

  /** Whether the connection is still open. */
  boolean isOpen();

  /** False while pending writes are above the high watermark, until they drain to the low one. */
  boolean isWritable();

  /** Bytes accepted by {@code write} and not yet handed to the socket. Loop thread only. */
  long pendingWriteBytes();

  /**
   * When bytes last moved on this connection (read, or handed to the socket), on the loop's clock
   * ({@link EventLoop#nanoTime()}). With {@link #pendingWriteBytes()}, what an owner of several
   * connections (a proxy's pair) judges idleness by. Loop thread only.
   */
  long lastActivityNanos();

  /**
   * When bytes were last handed to the socket, on the loop's clock (the connection's start before
   * any were). With {@link #pendingWriteBytes()}, how an owner tells a peer that drains slowly from
   * one that drains nothing: a write of no bytes, a pause or a resume does not count. Loop thread
   * only.
   */
  long lastWriteNanos();

  /** Why the connection closed, or null while open. */
  CloseReason closeReason();

  /** Application state attached to this connection. */
  Object attachment();

  /** Attaches application state to this connection. */
  void attach(Object value);

  /** Stops reading (backpressure towards the peer) until {@link #resumeReading()}. */
  void pauseReading();

  /** Resumes reading after {@link #pauseReading()}. */
  void resumeReading();

  /**
   * Reads at most {@code bytes} at once from now on (at most one read slab, the default): a smaller
   * value costs more reads for the same bytes but no memory, and shares the loop more finely
   * between connections.
   *
   * @throws IllegalArgumentException when {@code bytes} is below 1
   */
  void setMaxReadBytes(int bytes);

  /**
   * Hands the connection to {@code next}: every later callback goes to it, starting with its {@link
   * ConnectionHandler#onActive} now. How a first stage that looks at the first bytes (a {@link
   * DetectingHandler}) passes the connection on. Loop thread only, from a callback.
   */
  void switchHandler(ConnectionHandler next);

  /**
   * Writes {@code buffer}, queued by reference: the caller must not modify it until the future
   * completes. No copy of the payload is made. (Allocates a future per call; hot paths use {@link
   * #write(ByteBuffer, WriteListener)}.)
   */
  default CompletableFuture<Void> write(ByteBuffer buffer) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    write(
        buffer,
        error -> {
          if (error == null) {
            done.complete(null);
          } else {
            done.completeExceptionally(error);
          }
        });
    return done;
  }

  /**
   * Writes {@code buffer}, queued by reference until {@code listener} hears it completed; the
   * caller must not modify it until then.
   *
   * @param listener told of completion or failure on the loop, after this call returns; may be null
   */
  void write(ByteBuffer buffer, WriteListener listener);

  /**
   * Writes bytes that are valid only during this call (for example a borrowed read buffer): what
   * cannot be sent at once is copied at exact size and queued. Loop thread only.
   *
   * @param listener told of completion or failure, after this call returns; may be null
   */
  void writeTransient(ByteBuffer source, WriteListener listener);

  /**
   * Shuts down this side's output once pending writes are flushed (the peer reads EOF); reading
   * goes on. When both directions are shut, the connection closes normally.
   */
  void shutdownOutput();

  /** Closes now; writes still pending fail with {@link ConnectionClosedException}. */
  default void close() {
    close(CloseReason.NORMAL);
  }

  /**
   * Closes now with {@code reason}, which {@link ConnectionHandler#onClose} and {@link
   * #closeReason()} report; writes still pending fail.
   */
  void close(CloseReason reason);

  /** Closes with a reset: the peer sees RST and pending writes fail. */
  void reset();
}
