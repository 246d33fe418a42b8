package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * One connected (or connecting) stream socket of a transport, TCP or Unix-domain, in non-blocking
 * mode. What {@link SocketConnection} needs of a socket and nothing more: the connection keeps the
 * write queue, the states and the close logic, which are the same on every transport. Loop thread
 * only, from {@link #register} on; nothing else may be called before it.
 */
interface StreamSocket {
  /** Watches the socket with {@code poller} for {@code ops}, telling {@code owner}. */
  void register(Poller poller, Pollable owner, int ops) throws IOException;

  /** Sets the operations to watch for (0: none). */
  void interest(int ops) throws IOException;

  /** Applies {@code options} (TCP-only ones are skipped on Unix-domain sockets). */
  void configure(SocketOptions options) throws IOException;

  /** Starts connecting; true when connected at once, false when {@link Poller#CONNECT} follows. */
  boolean connect(SocketAddress remote) throws IOException;

  /** Finishes a connect that was in progress: true once connected; throws what it failed with. */
  boolean finishConnect() throws IOException;

  /** Reads into {@code dst} from its position; returns the bytes read, 0 for none, -1 at EOF. */
  int read(ByteBuffer dst) throws IOException;

  /** Writes from a direct {@code src}, moving its position; returns the bytes written. */
  int write(ByteBuffer src) throws IOException;

  /** Writes from direct buffers in order (a gathering write); returns the bytes written. */
  long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

  /** Sends FIN after what was written. */
  void shutdownOutput() throws IOException;

  /** Makes the coming {@link #close()} a reset (SO_LINGER 0). */
  void lingerZero() throws IOException;

  /** The local address, or null when unknown. */
  SocketAddress localAddress();

  /** The peer's address, or null when unknown. */
  SocketAddress remoteAddress();

  /** Stops watching and closes; best effort, never throws. */
  void close();
}
