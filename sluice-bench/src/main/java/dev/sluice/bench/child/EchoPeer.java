package dev.sluice.bench.child;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.integrity.Corruption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Echoes every byte back as soon as it arrives, until the measured side closes. */
public final class EchoPeer extends BlockingPeer {
  private static final int BUFFER = 1 << 20;

  @Override
  protected void serve(SocketChannel channel, int connection, ChildControl control)
      throws IOException {
    Corruption corruption = Corruption.from(control.params());
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    long offset = 0;
    while (channel.read(buffer.clear()) >= 0) {
      buffer.flip();
      corruption.apply(buffer, offset);
      offset += buffer.remaining();
      BlockingIo.writeFully(channel, buffer);
    }
  }
}
