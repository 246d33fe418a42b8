package dev.sluice.bench.workload.bulk;

import dev.sluice.bench.child.BlockingIo;
import dev.sluice.bench.child.BlockingPeer;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** The bulk peer: reads how many bytes to send, sends that much pattern, shuts its output. */
final class BulkSender extends BlockingPeer {
  private static final int BUFFER = 1 << 20;

  @Override
  protected void serve(SocketChannel channel, int connection, ChildControl control)
      throws IOException {
    Corruption corruption = Corruption.from(control.params());
    long total = BlockingIo.readLong(channel);
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    for (long offset = 0; offset < total; ) {
      buffer.clear().limit((int) Math.min(BUFFER, total - offset));
      PayloadPattern.DEFAULT.fill(buffer, offset);
      corruption.apply(buffer, offset);
      offset += buffer.remaining();
      BlockingIo.writeFully(channel, buffer);
    }
    channel.shutdownOutput();
    BlockingIo.drainToEof(channel);
  }
}
