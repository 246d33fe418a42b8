package dev.sluice.bench.workload.bigwrite;

import dev.sluice.bench.child.BlockingIo;
import dev.sluice.bench.child.BlockingPeer;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.testing.Sha256;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;

/**
 * The big write's peer: reads the announced number of bytes as fast as they come, hashes them with
 * SHA-256 and reports {@code RECEIVED bytes=N sha256=HEX} to the harness, which compares it with
 * the writer's own hash of its payload.
 */
final class HashingReader extends BlockingPeer {
  private static final int BUFFER = 1 << 20;

  @Override
  protected void serve(SocketChannel channel, int connection, ChildControl control)
      throws IOException {
    Corruption corruption = Corruption.from(control.params());
    long expected = BlockingIo.readLong(channel);
    MessageDigest digest = Sha256.newDigest();
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    long received = 0;
    while (received < expected) {
      buffer.clear().limit((int) Math.min(BUFFER, expected - received));
      if (channel.read(buffer) < 0) {
        throw new EOFException("the writer left after " + received + " of " + expected + " bytes");
      }
      buffer.flip();
      corruption.apply(buffer, received);
      received += buffer.remaining();
      digest.update(buffer);
    }
    control.send(
        "RECEIVED", "connection", connection, "bytes", received, "sha256", Sha256.hex(digest));
    BlockingIo.drainToEof(channel);
  }
}
