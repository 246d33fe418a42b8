package dev.sluice.bench.child;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Whole reads and writes on blocking channels, for the peers. */
public final class BlockingIo {
  private BlockingIo() {}

  /** Reads until {@code buffer} is full. */
  public static void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        throw new EOFException("the connection ended " + buffer.remaining() + " bytes early");
      }
    }
  }

  /** Writes all of {@code buffer}. */
  public static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** Reads one big-endian long. */
  public static long readLong(SocketChannel channel) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(Long.BYTES);
    readFully(channel, header);
    return header.getLong(0);
  }

  /** Reads and discards until the peer closes its output. */
  public static void drainToEof(SocketChannel channel) throws IOException {
    ByteBuffer sink = ByteBuffer.allocate(256);
    while (channel.read(sink.clear()) >= 0) {
      // discard
    }
  }
}
