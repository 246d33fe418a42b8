package dev.sluice.bench.workload.retention;

import dev.sluice.bench.child.BlockingIo;
import dev.sluice.bench.child.BlockingPeer;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.testing.PayloadPattern;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The retention peer: reads how many chunks to send, sends the first, then one more per
 * acknowledgement byte, so at most one chunk is in flight and every chunk arrives as its own read;
 * then shuts its output.
 */
final class ChunkSender extends BlockingPeer {

  @Override
  protected void serve(SocketChannel channel, int connection, ChildControl control)
      throws IOException {
    int size = control.params().intBytes(RetentionWorkload.SIZE);
    Corruption corruption = Corruption.from(control.params());
    long chunks = BlockingIo.readLong(channel);
    ByteBuffer chunk = ByteBuffer.allocateDirect(size);
    ByteBuffer acks = ByteBuffer.allocate(64);
    long offset = 0;
    long sent = 0;
    long credits = 1; // the request itself asks for the first chunk
    while (sent < chunks) {
      for (; credits > 0 && sent < chunks; credits--, sent++) {
        chunk.clear();
        PayloadPattern.DEFAULT.fill(chunk, offset);
        corruption.apply(chunk, offset);
        BlockingIo.writeFully(channel, chunk);
        offset += size;
      }
      if (sent < chunks) {
        int n = channel.read(acks.clear());
        if (n < 0) {
          throw new EOFException("the client left after " + sent + " of " + chunks + " chunks");
        }
        credits += n;
      }
    }
    channel.shutdownOutput();
    BlockingIo.drainToEof(channel);
  }
}
