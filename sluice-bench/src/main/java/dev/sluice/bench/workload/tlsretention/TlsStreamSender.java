package dev.sluice.bench.workload.tlsretention;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.bench.tls.TlsBlockingPeer;
import dev.sluice.testing.PayloadPattern;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLSocket;

/**
 * The tlsretention peer: a JDK {@code SSLSocket} server that reads how many bytes to send, sends
 * that much pattern in writes of {@code --write} bytes, then closes with close_notify. The JDK
 * socket encrypts and sends each write at once, so every write is its own record (or, above 16 KiB,
 * its own records) on the wire: with {@code --write 1024} the records stay small.
 */
final class TlsStreamSender extends TlsBlockingPeer {

  @Override
  protected void serve(SSLSocket socket, int connection, ChildControl control) throws IOException {
    int writeSize = control.params().intBytes(TlsRetentionWorkload.WRITE);
    Corruption corruption = Corruption.from(control.params());
    long total = new DataInputStream(socket.getInputStream()).readLong();
    OutputStream out = socket.getOutputStream();
    byte[] piece = new byte[writeSize];
    ByteBuffer view = ByteBuffer.wrap(piece);
    for (long offset = 0; offset < total; ) {
      int n = (int) Math.min(writeSize, total - offset);
      view.clear().limit(n);
      PayloadPattern.DEFAULT.fill(view, offset);
      corruption.apply(view, offset);
      out.write(piece, 0, n);
      offset += n;
    }
    out.flush();
    socket.shutdownOutput(); // close_notify: the client's end of input
    drain(socket.getInputStream());
  }

  /** Waits for the client to close its side, so the last records are never cut by a reset. */
  private static void drain(InputStream in) {
    try {
      byte[] sink = new byte[256];
      while (in.read(sink) >= 0) {
        // discard
      }
    } catch (IOException ignored) {
      // With TLS 1.2 the JDK closes both directions at shutdownOutput; nothing more to read.
    }
  }
}
