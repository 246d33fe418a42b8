package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Small writes made in one turn of the loop share TLS records: each record costs a cipher pass, 22+
 * bytes and, sent alone, a syscall (Netty coalesces at flush; Sluice at the end of the turn).
 */
class TlsWriteCoalescingTest extends TlsTestBase {
  private static final int WRITES = 64;
  private static final int WRITE_SIZE = 256;
  private static final int APPLICATION_DATA = 23;

  @Test
  void smallWritesMadeTogetherGoOutInFullRecords() throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          public void onActive(Connection connection) {
            super.onActive(connection);
            for (int i = 0; i < WRITES; i++) {
              connection.write(ByteBuffer.allocate(WRITE_SIZE));
            }
            connection.close(); // what was written before close() still goes out
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols("TLSv1.2"), () -> server);
    byte[] raw;
    try (RawTlsPeer peer = new RawTlsPeer(listener.localAddress(), pki.caTrust(), "TLSv1.2")) {
      peer.handshake();
      raw = peer.readUntilClosed();
    }
    List<Integer> dataRecordLengths = new ArrayList<>();
    int offset = 0;
    while (offset + 5 <= raw.length) {
      int type = raw[offset] & 0xff;
      int length = ((raw[offset + 3] & 0xff) << 8) | (raw[offset + 4] & 0xff);
      if (type == APPLICATION_DATA) {
        dataRecordLengths.add(length);
      }
      offset += 5 + length;
    }
    assertThat(offset).as("whole records received").isEqualTo(raw.length);
    // 64 x 256 B = 16 KiB of plaintext: one full record, at most two; never one per write.
    assertThat(dataRecordLengths).hasSizeBetween(1, 2);
    assertThat(dataRecordLengths.stream().mapToInt(Integer::intValue).sum())
        .isGreaterThan(WRITES * WRITE_SIZE);
  }
}
