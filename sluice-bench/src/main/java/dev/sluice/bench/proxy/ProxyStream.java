package dev.sluice.bench.proxy;

import dev.sluice.bench.tls.BenchTls;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One load-client connection through the proxy to the echo upstream: a blocking JDK socket (an
 * {@code SSLSocket} when the proxy terminates TLS) that sends its own stream of the project's
 * payload pattern (one seed per connection, so bytes crossed between connections are caught) and
 * verifies every echoed byte at its offset. Not thread-safe, except that {@link #exchange} writes
 * on a second thread while it reads.
 */
public final class ProxyStream implements Closeable {
  /** Bytes per write and per read. */
  static final int CHUNK = 32 * 1024;

  /** Bytes per write of a one-way stream ({@link #pour}): fewer system calls per GiB. */
  static final int POUR_CHUNK = 256 * 1024;

  /**
   * Messages up to this size are written, then read: they fit in every socket buffer on the way.
   */
  public static final int SEQUENTIAL_MAX = 16 * 1024;

  /** How long a read may wait before the run fails (a proxy that lost bytes would hang it). */
  static final int READ_TIMEOUT_MS = 120_000;

  private final long seed;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final PayloadPattern pattern;
  private long sent;
  private long received;
  private String failure;

  private ProxyStream(long seed, Socket socket) throws IOException {
    this.seed = seed;
    this.socket = socket;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
    this.pattern = new PayloadPattern(seed);
  }

  /**
   * Connects to the proxy (and, with {@code tls}, completes the handshake, checking the version and
   * suite negotiated).
   */
  public static ProxyStream open(long seed, InetSocketAddress proxy, BenchTls tls)
      throws IOException {
    Socket socket;
    if (tls != null) {
      socket = tls.peerConnect(proxy);
    } else {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(proxy, 10_000);
    }
    socket.setSoTimeout(READ_TIMEOUT_MS);
    return new ProxyStream(seed, socket);
  }

  /** Writes the next {@code bytes} of this connection's stream. */
  public void send(long bytes) throws IOException {
    byte[] chunk = new byte[(int) Math.min(CHUNK, Math.max(1, bytes))];
    long end = sent + bytes;
    while (sent < end) {
      int n = (int) Math.min(chunk.length, end - sent);
      pattern.fill(ByteBuffer.wrap(chunk, 0, n), sent);
      out.write(chunk, 0, n);
      sent += n;
    }
    out.flush();
  }

  /**
   * Reads exactly the next {@code bytes} of the echo and checks every one; a wrong byte is
   * remembered ({@link #failure}) and the rest is still read.
   *
   * @throws EOFException when the connection ends first
   */
  public void receive(long bytes) throws IOException {
    byte[] chunk = new byte[(int) Math.min(CHUNK, Math.max(1, bytes))];
    PatternVerifier verifier = pattern.verifier(received);
    long end = received + bytes;
    while (received < end) {
      int n = in.read(chunk, 0, (int) Math.min(chunk.length, end - received));
      if (n < 0) {
        throw new EOFException(
            "connection " + seed + " ended " + (end - received) + " bytes before its echo did");
      }
      if (failure == null && !verifier.update(ByteBuffer.wrap(chunk, 0, n))) {
        failure = "connection " + seed + ": " + verifier.failure();
      }
      received += n;
    }
  }

  /**
   * Sends {@code bytes} and reads their echo: one after the other when they fit in any socket
   * buffer ({@link #SEQUENTIAL_MAX}), else at the same time (the writer on a virtual thread), so a
   * burst larger than the socket buffers cannot deadlock.
   */
  public void exchange(long bytes) throws IOException, InterruptedException {
    if (bytes <= SEQUENTIAL_MAX) {
      send(bytes);
      receive(bytes);
      return;
    }
    AtomicReference<IOException> writeFailure = new AtomicReference<>();
    Thread writer =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    send(bytes);
                  } catch (IOException e) {
                    writeFailure.set(e);
                  }
                });
    try {
      receive(bytes);
    } finally {
      writer.join();
    }
    if (writeFailure.get() != null) {
      throw writeFailure.get();
    }
  }

  /**
   * Streams for {@code durationNanos}: a writer thread sends the pattern as fast as the proxy takes
   * it while this thread reads and checks the echo, then reads what is still in flight.
   *
   * @return the bytes echoed and checked
   */
  public long stream(long durationNanos) throws IOException, InterruptedException {
    AtomicReference<IOException> writeFailure = new AtomicReference<>();
    AtomicLong published = new AtomicLong(sent);
    AtomicBoolean done = new AtomicBoolean();
    long deadline = System.nanoTime() + durationNanos;
    long start = received;
    Thread writer =
        Thread.ofPlatform()
            .name("stream-writer-" + seed)
            .daemon(true)
            .start(
                () -> {
                  try {
                    byte[] chunk = new byte[CHUNK];
                    while (System.nanoTime() < deadline) {
                      pattern.fill(ByteBuffer.wrap(chunk), sent);
                      out.write(chunk);
                      sent += chunk.length;
                      published.set(sent);
                    }
                  } catch (IOException e) {
                    writeFailure.set(e);
                  } finally {
                    done.set(true);
                  }
                });
    byte[] chunk = new byte[CHUNK];
    PatternVerifier verifier = pattern.verifier(received);
    try {
      while (true) {
        boolean finished = done.get(); // read before published: once done, published is final
        long available = published.get() - received;
        if (available == 0) {
          if (finished) {
            break;
          }
          LockSupport.parkNanos(20_000);
          continue;
        }
        int n = in.read(chunk, 0, (int) Math.min(chunk.length, available));
        if (n < 0) {
          throw new EOFException(
              "connection " + seed + " ended " + available + " bytes before its echo did");
        }
        if (failure == null && !verifier.update(ByteBuffer.wrap(chunk, 0, n))) {
          failure = "connection " + seed + ": " + verifier.failure();
        }
        received += n;
      }
    } finally {
      writer.join();
    }
    if (writeFailure.get() != null) {
      throw writeFailure.get();
    }
    return received - start;
  }

  /**
   * Writes this connection's stream for {@code durationNanos} as fast as the proxy takes it, in
   * pieces of {@value #POUR_CHUNK} bytes, reading nothing (a one-way stream: nothing comes back).
   *
   * @return the bytes written
   */
  public long pour(long durationNanos) throws IOException {
    byte[] chunk = new byte[POUR_CHUNK];
    long deadline = System.nanoTime() + durationNanos;
    long start = sent;
    while (System.nanoTime() < deadline) {
      pattern.fill(ByteBuffer.wrap(chunk), sent);
      out.write(chunk);
      sent += chunk.length;
    }
    out.flush();
    return sent - start;
  }

  /**
   * Ends this connection's stream (a FIN, or TLS's close_notify first) while the connection stays
   * open for what the proxy does next.
   */
  public void finishSending() throws IOException {
    socket.shutdownOutput();
  }

  /** Bytes of this connection's stream written so far. */
  public long sent() {
    return sent;
  }

  /** Sets how long a read may wait (the default is {@value #READ_TIMEOUT_MS} ms). */
  public void readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  /** This connection's seed: its stream's identity. */
  public long seed() {
    return seed;
  }

  /** The first wrong byte, or null. */
  public String failure() {
    return failure;
  }

  /** Bytes of echo received and checked so far. */
  public long received() {
    return received;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
